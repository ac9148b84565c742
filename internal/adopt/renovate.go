package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tailscale/hujson"
)

// renovateFiles are where Renovate looks for its config, in its order; the
// first that exists is the config.
var renovateFiles = []string{
	"renovate.json", "renovate.jsonc", "renovate.json5",
	".github/renovate.json", ".github/renovate.jsonc", ".github/renovate.json5",
	".gitlab/renovate.json", ".gitlab/renovate.jsonc", ".gitlab/renovate.json5",
	".renovaterc", ".renovaterc.json", ".renovaterc.jsonc", ".renovaterc.json5",
	"package.json",
}

// jnode is a JSON value with the line it starts on, so that every note
// names the line of the setting it is about.
type jnode struct {
	kind byte // '{' object, '[' array, '"' string, '0' number, 't'/'f' bool, 'n' null
	str  string
	keys []string
	vals []*jnode // object member values, or array elements
	line int
}

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// list reads a string or an array of strings; ok is false for anything else.
func (n *jnode) list() (out []string, ok bool) {
	switch {
	case n == nil:
		return nil, false
	case n.kind == '"':
		return []string{n.str}, true
	case n.kind != '[':
		return nil, false
	}
	for _, v := range n.vals {
		if v.kind != '"' {
			return nil, false
		}
		out = append(out, v.str)
	}
	return out, true
}

func (n *jnode) isTrue() bool  { return n != nil && n.kind == 't' }
func (n *jnode) isFalse() bool { return n != nil && n.kind == 'f' }

// renovateConfig finds and reads Renovate's config. JSON with comments and
// trailing commas (what Renovate reads in renovate.json) is read with
// tailscale/hujson; the rest of JSON5 (unquoted keys, single quotes) is an
// error naming the line, with what to change.
func renovateConfig(fsys fs.FS) (string, *jnode, error) {
	for _, name := range renovateFiles {
		src, err := readCapped(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return name, nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := checkDepth(name, src); err != nil {
			return name, nil, err
		}
		v, err := hujson.Parse(src)
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "hujson: ")
			if strings.HasSuffix(name, ".json5") {
				return name, nil, fmt.Errorf("%s: %s: JSON5 beyond comments and trailing commas (unquoted keys, single quotes, hex numbers) is not supported: quote keys and strings with \", then run init again", name, msg)
			}
			return name, nil, fmt.Errorf("%s: not valid JSON: %s", name, msg)
		}
		root := toJnode(newLines(src), v)
		if name == "package.json" {
			if root = root.get("renovate"); root == nil {
				continue
			}
		}
		if root.kind != '{' {
			return name, nil, fmt.Errorf("%s:%d: the config must be a JSON object", name, root.line)
		}
		return name, root, nil
	}
	return "", nil, fmt.Errorf("%w: no Renovate config in the repository (looked for %s); run init without --from", ErrNothingToConvert, strings.Join(renovateFiles, ", "))
}

func toJnode(ls lines, v hujson.Value) *jnode {
	n := &jnode{line: ls.of(v.StartOffset)}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.kind = '{'
		for _, m := range t.Members {
			n.keys = append(n.keys, m.Name.Value.(hujson.Literal).String())
			n.vals = append(n.vals, toJnode(ls, m.Value))
		}
	case *hujson.Array:
		n.kind = '['
		for _, e := range t.Elements {
			n.vals = append(n.vals, toJnode(ls, e))
		}
	case hujson.Literal:
		n.kind = byte(t.Kind())
		if n.kind == '"' {
			n.str = t.String()
		} else {
			n.str = string(t)
		}
	}
	return n
}
