package adopt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/titanous/json5"
)

// parseJSON5 reads src as JSON5 with github.com/titanous/json5 into a
// jnode tree that knows the line of every value. The library decodes into
// Go values only, so each level is decoded into raw values (sub-slices of
// src, whose offset in src their capacity tells) and those are decoded in
// turn. Errors start with the line, for "file:" to be put in front. The
// library recurses once per level: callers bound the nesting first
// (checkDepth).
func parseJSON5(src []byte) (*jnode, error) {
	p := j5parser{src: src, ls: newLines(src)}
	// The whole first: the value without the space and comments around
	// it, or the library's error and its offset.
	var whole raw
	if err := json5.Unmarshal(src, &whole); err != nil {
		var se *json5.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%d: not valid JSON5: %v", p.ls.of(int(se.Offset)), se)
		}
		return nil, fmt.Errorf("1: not valid JSON5: %v", err)
	}
	return p.node(whole)
}

type j5parser struct {
	src []byte
	ls  lines
}

// raw keeps the bytes of one value as a sub-slice of the input: it is only
// read while the input is alive, so it need not copy.
type raw []byte

func (r *raw) UnmarshalJSON(b []byte) error { *r = b; return nil }

func (p *j5parser) node(b []byte) (*jnode, error) {
	n := &jnode{line: p.ls.of(cap(p.src) - cap(b))}
	switch b[0] {
	case '{':
		n.kind = '{'
		var m map[string]raw
		if err := json5.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		// In the file's order: a value's capacity shrinks as it comes later.
		slices.SortFunc(keys, func(a, b string) int { return cap(m[b]) - cap(m[a]) })
		for _, k := range keys {
			v, err := p.node(m[k])
			if err != nil {
				return nil, err
			}
			n.keys, n.vals = append(n.keys, k), append(n.vals, v)
		}
	case '[':
		n.kind = '['
		var a []raw
		if err := json5.Unmarshal(b, &a); err != nil {
			return nil, err
		}
		for _, e := range a {
			v, err := p.node(e)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
	case '"', '\'':
		n.kind = '"'
		if err := json5.Unmarshal(b, &n.str); err != nil {
			return nil, err
		}
	case 't', 'f', 'n':
		n.kind, n.str = b[0], string(b)
	default:
		var f float64
		if err := json5.Unmarshal(b, &f); err != nil {
			return nil, err
		}
		n.kind = '0'
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			n.str = strconv.FormatInt(int64(f), 10) // 0x10 reads as 16
		} else {
			n.str = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return n, nil
}
