package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/safefs"
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
	// file is the file the value was read from when it is a preset's,
	// "" for the config's own.
	file string
}

// fileOr is the file n was read from, or def for the config's own.
func (n *jnode) fileOr(def string) string {
	if n.file != "" {
		return n.file
	}
	return def
}

// setFile marks every value of a preset's tree with its file.
func (n *jnode) setFile(file string) {
	n.file = file
	for _, v := range n.vals {
		v.setFile(file)
	}
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
		root, err := readRenovate(fsys, name)
		if errors.Is(err, fs.ErrNotExist) || (err != nil && name == "package.json") {
			continue // a package.json that does not parse holds no config Renovate reads either
		}
		if err != nil {
			return name, nil, err
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

// maxRenovate is the largest Renovate config (or preset file) init reads:
// the size of the largest .imagebot.yaml imagebot loads, since a
// conversion writes at least as much as it reads. Real configs are a few
// KB; parsing costs about 26 bytes of memory per byte of input, so this
// bounds init's memory whatever the file holds.
const maxRenovate = config.MaxSize

// readRenovate reads and parses one JSON5 file of Renovate's. Its size is
// checked before a byte is read, and its nesting before it is parsed.
func readRenovate(fsys fs.FS, name string) (*jnode, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() && st.Size() > maxRenovate {
		return nil, fmt.Errorf("%s: %w: %d bytes, above the %d bytes init reads in a Renovate config; nothing was converted", name, ErrTooLarge, st.Size(), maxRenovate)
	}
	src, err := safefs.ReadFS(fsys, name, maxRenovate)
	var tl *safefs.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%s: %w: above the %d bytes init reads in a Renovate config; nothing was converted", name, ErrTooLarge, maxRenovate)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkDepth(name, src); err != nil {
		return nil, err
	}
	root, err := parseJSON5(src)
	if err != nil {
		return nil, fmt.Errorf("%s:%v", name, err)
	}
	return root, nil
}
