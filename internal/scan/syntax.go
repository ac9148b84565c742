package scan

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

var lineRE = regexp.MustCompile(`^yaml: (?:line \d+: )?`)

// hints say what yaml.v3's most puzzling messages usually mean.
var hints = map[string]string{
	"found unexpected end of stream":                  "a quote opened on this line is never closed",
	"found a tab character that violates indentation": "indent with spaces, not tabs",
	"found character that cannot start any token":     "a tab used as indentation, or a value starting with @ or ` that needs quotes",
	"mapping values are not allowed in this context":  "a value holding \": \" needs quotes",
}

// syntaxError names the line of a YAML error that a person would fix.
//
// yaml.v3 reports the line where the enclosing block starts (counted from
// 0 for some errors and from 1 for others), which may be far above the
// mistake. The mistake is on the first line k such that the first k lines
// fail as the whole file does: below it the file still parses, or fails
// only because it was cut off mid-construct. That line is at or just above
// the point where the parser stopped reading (read), so the search gallops
// down from there: a few parses of a prefix, not hundreds.
func syntaxError(file string, src []byte, err error, read int) Problem {
	line, _ := locate(src, err, read)
	text := clip(strings.TrimSpace(lineRE.ReplaceAllString(err.Error(), "")))
	if h, ok := hints[text]; ok {
		text += " (" + h + ")"
	}
	return Problem{Location: Location{File: file, Line: line}, Err: fmt.Errorf("%w: %s", ErrSyntax, text)}
}

// locate returns the line to fix, and how many bytes it parsed to find it.
func locate(src []byte, err error, read int) (line, parsed int) {
	msg := err.Error()
	ls := newLines(src)
	// The line holding the last byte read: the first that many lines fail
	// as the file does, as the parser saw nothing else.
	hi := min(max(sort.SearchInts(ls.starts, read), 1), len(ls.starts))
	fails := func(k int) bool {
		if k <= 0 {
			return false
		}
		end := len(src)
		if k < len(ls.starts) {
			end = ls.starts[k]
		}
		parsed += end
		_, _, perr := parse(src[:end])
		return perr != nil && perr.Error() == msg
	}
	// Gallop down: hi fails; find lo < hi that does not.
	lo, step := hi-1, 1
	for lo > 0 && fails(lo) {
		hi = lo
		step *= 2
		lo = max(hi-step, 0)
	}
	// Bisect (lo, hi]: lo does not fail, hi does.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, parsed
}
