package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Limits on following a config's presets in the repository: real configs
// extend a file or two, one level deep. The files together are bounded by
// the size of one config, so init's memory stays bounded by its input cap.
const (
	maxPresetDepth = 5
	maxPresetFiles = 20
)

// repoPreset reads Renovate's forms of a preset kept in a repository:
// local>, github>, gitlab>, gitea> and bitbucket> followed by owner/repo
// (a GitLab group path may be longer), then //path/to/file or :name, an
// optional #tag, and no arguments.
var repoPreset = regexp.MustCompile(`^(local|github|gitlab|gitea|bitbucket|forgejo)>([^/:#(]+(?:/[^/:#(]+)+?)(?://([^:#(]+)|:([A-Za-z0-9_.-]+))?(?:#([^(]+))?(\(.*\))?$`)

// presetReader follows the extends of a config into the files of this
// repository.
type presetReader struct {
	fsys  fs.FS
	repo  string // owner/name of this repository, "" when unknown
	files int    // preset files read
	bytes int64  // and their sizes together
	ns    *notes
	file  string // the config's file, for notes about the repository
}

// expand returns root with the presets it extends from this repository
// merged in as Renovate merges them: in order, each preset before the
// config that extends it, packageRules joined (the preset's first), any
// other key of the config replacing the preset's. extends keeps the
// presets that were not followed, for the caller to convert or name.
func (p *presetReader) expand(root *jnode, depth int, seen []string) *jnode {
	ext := root.get("extends")
	list, _ := ext.list()
	acc := &jnode{kind: '{', line: root.line, file: root.file}
	var rest []*jnode
	for i, name := range list {
		file, ok := p.local(ext, name)
		if !ok {
			rest = append(rest, listItem(ext, i, name))
			continue
		}
		switch {
		case slices.Contains(seen, file):
			p.note(ext, "extends %q: %s extends itself; followed once", name, file)
			continue
		case depth >= maxPresetDepth:
			p.note(ext, "extends %q: presets nest more than %d levels deep; not followed", name, maxPresetDepth)
			continue
		case p.files >= maxPresetFiles:
			p.note(ext, "extends %q: more than %d preset files; not followed", name, maxPresetFiles)
			continue
		}
		preset, err := p.read(file)
		if err != nil {
			p.note(ext, "extends %q: %v; not followed", name, err)
			continue
		}
		merge(acc, p.expand(preset, depth+1, append(seen, file)))
	}
	own := &jnode{kind: '{', line: root.line, file: root.file}
	for i, k := range root.keys {
		if k != "extends" {
			own.keys, own.vals = append(own.keys, k), append(own.vals, root.vals[i])
		}
	}
	merge(acc, own)
	if ext != nil && len(rest) > 0 {
		merge(acc, &jnode{kind: '{', keys: []string{"extends"}, vals: []*jnode{{kind: '[', vals: rest, line: ext.line, file: ext.file}}})
	}
	return acc
}

// listItem is the i-th string of an extends value (a string or a list).
func listItem(ext *jnode, i int, name string) *jnode {
	if ext.kind == '[' {
		return ext.vals[i]
	}
	return &jnode{kind: '"', str: name, line: ext.line, file: ext.file}
}

// merge puts src's keys into dst: packageRules and extends are joined,
// any other key replaced.
func merge(dst, src *jnode) {
	for i, k := range src.keys {
		v := src.vals[i]
		j := slices.Index(dst.keys, k)
		switch {
		case j < 0:
			dst.keys, dst.vals = append(dst.keys, k), append(dst.vals, v)
		case (k == "packageRules" || k == "extends") && dst.vals[j].kind == '[' && v.kind == '[':
			joined := *dst.vals[j]
			joined.vals = append(slices.Clone(joined.vals), v.vals...)
			dst.vals[j] = &joined
		default:
			dst.vals[j] = v
		}
	}
}

// local is the file of this repository a preset names, or ok false for
// one elsewhere (named in a note) or of another kind (Renovate's built-in
// presets, converted or named by the caller).
func (p *presetReader) local(at *jnode, name string) (string, bool) {
	m := repoPreset.FindStringSubmatch(name)
	if m == nil {
		return "", false
	}
	repo, file, preset, tag, args := m[2], m[3], m[4], m[5], m[6]
	if p.repo == "" || !strings.EqualFold(repo, p.repo) {
		who := "another repository"
		if p.repo == "" {
			who = "a repository init cannot tell is this one"
		}
		p.note(at, "extends %q: a preset in %s; not followed: copy the docker rules it holds into packageRules and run init again", name, who)
		return "", false
	}
	if args != "" {
		p.note(at, "extends %q: a preset with arguments; not followed", name)
		return "", false
	}
	if tag != "" {
		p.note(at, "extends %q: read from the files as they are now, not at %s", name, tag)
	}
	switch {
	case file != "":
	case preset != "":
		file = preset
	default:
		file = "default"
	}
	file = strings.TrimPrefix(path.Clean("/"+file), "/")
	if path.Ext(file) == "" {
		for _, ext := range []string{".json", ".json5"} {
			if _, err := fs.Stat(p.fsys, file+ext); err == nil {
				return file + ext, true
			}
		}
		file += ".json"
	}
	return file, true
}

// read reads one preset file within the limits.
func (p *presetReader) read(file string) (*jnode, error) {
	st, err := fs.Stat(p.fsys, file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not in the repository", file)
	}
	if err != nil {
		return nil, err
	}
	if p.bytes+st.Size() > maxRenovate {
		return nil, fmt.Errorf("%w: the config and its presets together pass %d bytes", ErrTooLarge, maxRenovate)
	}
	root, err := readRenovate(p.fsys, file)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("%s:%d: a preset must be a JSON object", file, root.line)
	}
	p.files++
	p.bytes += st.Size()
	root.setFile(file)
	return root, nil
}

func (p *presetReader) note(at *jnode, format string, args ...any) {
	file, line := p.file, 0
	if at != nil {
		file, line = at.fileOr(p.file), at.line
	}
	p.ns.add(file, line, format, args...)
}
