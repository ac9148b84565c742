package docs

import (
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lineAnchor is how GitHub links to lines of a file that is not Markdown.
var lineAnchor = regexp.MustCompile(`^L\d+(-L\d+)?$`)

// TestLinks checks every relative link and #anchor of README.md and docs/:
// the file or directory exists in the repository, and an anchor names a
// heading of the Markdown page it points into, as GitHub spells its id.
func TestLinks(t *testing.T) {
	all := pages(t)
	byPath := map[string]*page{}
	for _, p := range all {
		byPath[p.path] = p
	}
	for _, p := range all {
		for _, l := range p.links() {
			target, frag, ok := resolve(p.path, l.dest)
			if !ok {
				continue
			}
			where := p.path + ":" + strconv.Itoa(l.line)
			if strings.HasPrefix(target, "../") || target == ".." {
				t.Errorf("%s: link %q leaves the repository", where, l.dest)
				continue
			}
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
			if err != nil {
				t.Errorf("%s: link %q: no %s in the repository", where, l.dest, target)
				continue
			}
			if frag == "" {
				continue
			}
			switch {
			case strings.HasSuffix(target, ".md"):
				tp := byPath[target]
				if tp == nil {
					tp = readPage(t, target)
					byPath[target] = tp
				}
				if !tp.anchors[frag] {
					t.Errorf("%s: link %q: %s has no heading with the id %q (it has %s)",
						where, l.dest, target, frag, strings.Join(slices.Sorted(maps.Keys(tp.anchors)), ", "))
				}
			case info.IsDir() || !lineAnchor.MatchString(frag):
				t.Errorf("%s: link %q: an anchor into %s, which is not a Markdown page", where, l.dest, target)
			}
		}
	}
}

// TestIndexes makes every page of docs/ reachable: README.md and the index
// docs/README.md each link to all of them.
func TestIndexes(t *testing.T) {
	all := pages(t)
	for _, index := range []string{"README.md", "docs/README.md"} {
		var ip *page
		for _, p := range all {
			if p.path == index {
				ip = p
			}
		}
		if ip == nil {
			t.Fatalf("no %s", index)
		}
		linked := map[string]bool{}
		for _, l := range ip.links() {
			if target, _, ok := resolve(ip.path, l.dest); ok {
				linked[target] = true
			}
		}
		for _, p := range all {
			if p.path != index && p.path != "README.md" && !linked[p.path] {
				t.Errorf("%s does not link to %s: every page of docs/ is listed in both indexes", index, p.path)
			}
		}
	}
}

// resolve returns the repository path and anchor a link of the page at from
// points to; ok is false for a link that leaves the repository by URL.
func resolve(from, dest string) (target, frag string, ok bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "", "", false
	}
	if u.Path == "" {
		return from, u.Fragment, true
	}
	return path.Join(path.Dir(from), u.Path), u.Fragment, true
}
