package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
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

// renovateConfig finds and reads Renovate's config as Renovate does: as
// JSON5 (comments, trailing commas, unquoted keys, single quotes, hex
// numbers), which plain JSON and JSONC are subsets of.
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
		root, err := parseJSON5(src)
		if err != nil {
			return name, nil, fmt.Errorf("%s:%v", name, err)
		}
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
