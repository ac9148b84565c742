package adopt

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/scan"
)

// excluded is one entry of the exclude list a config is written with, and
// why it is there.
type excluded struct {
	glob, why string
}

// keptDirs are the directories people keep for tests, examples or other
// people's code rather than deployments: the ignorePaths of Renovate's
// :ignoreModulesAndTests (which config:recommended brings), and Go's
// testdata. `plan` still scans them when asked (paths); the config init
// writes leaves them out.
var keptDirs = []struct{ name, why string }{
	{"node_modules", "installed JavaScript packages, not deployments"},
	{"bower_components", "installed JavaScript packages, not deployments"},
	{"vendor", "vendored copies of other people's code"},
	{"examples", "examples, not deployments"},
	{"__tests__", "test files"},
	{"test", "test files"},
	{"tests", "test files"},
	{"__fixtures__", "test fixtures"},
	{"testdata", "test data"},
}

// maxDirs bounds the directories looked at for keptDirs: a repository
// with more is still converted, and its exclude list is what was found.
const maxDirs = 100_000

// keptExcludes lists the keptDirs that exist in fsys (never inside .git),
// each as `**/NAME/**` with where it was found.
func keptExcludes(fsys fs.FS) []excluded {
	found := map[string][]string{}
	seen := 0
	_ = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() || p == "." {
			return nil
		}
		if seen++; seen > maxDirs {
			return fs.SkipAll
		}
		if e.Name() == ".git" {
			return fs.SkipDir
		}
		for _, k := range keptDirs {
			if e.Name() == k.name {
				found[k.name] = append(found[k.name], p)
				return fs.SkipDir // the glob covers what is inside
			}
		}
		return nil
	})
	var out []excluded
	for _, k := range keptDirs {
		at := found[k.name]
		if len(at) == 0 {
			continue
		}
		where := at[0] + "/"
		if len(at) > 1 {
			where += fmt.Sprintf(" and %d more", len(at)-1)
		}
		out = append(out, excluded{glob: "**/" + k.name + "/**", why: oneLine(k.why + " (" + where + ")")})
	}
	return out
}

// archiveVersions is how many different versions of one image the files
// of one directory must pin for it to be read as a release archive: more
// than the environments of a rollout (dev, staging, prod) ever hold.
const archiveVersions = 5

// archiveExcludes finds release archives: directories whose files pin
// many different versions of one image (releases/app-1.15.0.yaml …
// releases/app-1.30.0.yaml). Each is a copy per release, not a
// deployment: updating them would propose one change per old version.
func archiveExcludes(refs []scan.Ref, skip []excluded) []excluded {
	type key struct{ dir, image string }
	tags := map[key]map[string]bool{}
	var order []key
	for _, r := range refs {
		dir := path.Dir(r.File)
		if r.Image == "" || r.Tag == "" || dir == "." || excludedBy(skip, r.File) {
			continue
		}
		k := key{dir, r.Image}
		if tags[k] == nil {
			tags[k] = map[string]bool{}
			order = append(order, k)
		}
		tags[k][r.Tag] = true
	}
	var out []excluded
	for _, k := range order {
		n := len(tags[k])
		g := globQuote(k.dir) + "/**"
		if n < archiveVersions || slices.ContainsFunc(out, func(e excluded) bool { return e.glob == g }) {
			continue
		}
		out = append(out, excluded{glob: g, why: oneLine(fmt.Sprintf("its files pin %d different versions of %s: a release archive, not deployments", n, k.image))})
	}
	return out
}

func excludedBy(ex []excluded, file string) bool {
	for _, e := range ex {
		if fits([]string{e.glob}, file) {
			return true
		}
	}
	return false
}

// excludeNode is the exclude list, each entry with its reason.
func (d *draft) excludeNode() []*yaml.Node {
	k := str("exclude")
	k.HeadComment = "Files imagebot never scans: copies kept for history, tests or other people's\n" +
		"code, not deployments. Delete an entry to have imagebot update what it holds."
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range d.exclude {
		v := str(e.glob)
		v.LineComment = e.why
		seq.Content = append(seq.Content, v)
	}
	return []*yaml.Node{k, seq}
}

// excludes adds the kept directories and release archives of fsys to the
// draft, after what it has.
func (d *draft) excludes(fsys fs.FS, refs []scan.Ref, kept bool) {
	if kept {
		for _, e := range keptExcludes(fsys) {
			if !slices.ContainsFunc(d.exclude, func(x excluded) bool { return x.glob == e.glob }) {
				d.exclude = append(d.exclude, e)
			}
		}
	}
	d.exclude = append(d.exclude, archiveExcludes(refs, d.exclude)...)
}

// globQuote escapes what doublestar reads as pattern syntax in a path
// taken from the repository, so that it matches that path only.
func globQuote(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine keeps a comment made of repository names on its line: a line
// break in a directory's name must not start a key of the config.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
