package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// page is one Markdown file of the repository, parsed as GitHub reads it
// (CommonMark with GitHub's tables and autolinks).
type page struct {
	path    string // relative to root, slash-separated
	source  []byte
	doc     ast.Node
	anchors map[string]bool
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

func readPage(t *testing.T, path string) *page {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	p := &page{path: path, source: src, doc: markdown.Parser().Parse(text.NewReader(src)), anchors: map[string]bool{}}
	seen := map[string]int{}
	for _, h := range p.headings() {
		p.anchors[anchor(h, seen)] = true
	}
	return p
}

// pages returns README.md and every page of docs/.
func pages(t *testing.T) []*page {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []*page{readPage(t, "README.md")}
	for _, f := range files {
		out = append(out, readPage(t, "docs/"+filepath.Base(f)))
	}
	return out
}

// headings returns the plain text of every heading, in order.
func (p *page) headings() []string {
	var out []string
	ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			out = append(out, plain(h, p.source))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// plain is the text a reader sees in n: code spans keep their content,
// links their text, emphasis loses its marks.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// anchor is the id GitHub gives a heading: its text in lower case, without
// punctuation other than - and _, spaces turned into -; the second heading
// with the same id gets -1, the third -2. seen counts the ids given so far.
func anchor(heading string, seen map[string]int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.Is(unicode.M, r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	id := b.String()
	n := seen[id]
	seen[id]++
	if n > 0 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

// link is one link or image of a page, with the line it is on.
type link struct {
	dest string
	line int
}

func (p *page) links() []link {
	var out []link
	ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest = n.Destination
		default:
			return ast.WalkContinue, nil
		}
		out = append(out, link{string(dest), p.line(n)})
		return ast.WalkContinue, nil
	})
	return out
}

// line is the line of n's first text, for messages (0 when it has none).
func (p *page) line(n ast.Node) int {
	start := -1
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		start = n.Lines().At(0).Start
	}
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering && start < 0 {
			start = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if start < 0 {
		return 0
	}
	return 1 + strings.Count(string(p.source[:start]), "\n")
}

func TestAnchor(t *testing.T) {
	seen := map[string]int{}
	for _, tc := range []struct{ heading, want string }{
		{"Configuration reference (.imagebot.yaml)", "configuration-reference-imagebotyaml"},
		{"Switching from Renovate / Flux / Argo CD Image Updater", "switching-from-renovate--flux--argo-cd-image-updater"},
		{"From Flux (init --from flux)", "from-flux-init---from-flux"},
		{"Gates: safe to propose", "gates-safe-to-propose"},
		{"snake_case and Ünïcode", "snake_case-and-ünïcode"},
		{"Policies", "policies"},
		{"Policies", "policies-1"},
		{"Policies", "policies-2"},
	} {
		if got := anchor(tc.heading, seen); got != tc.want {
			t.Errorf("anchor(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

// TestHeadingText reads a heading as GitHub shows it: code spans keep their
// text, links their words, emphasis loses its marks.
func TestHeadingText(t *testing.T) {
	src := []byte("## From Flux (`init --from flux`)\n\n### *Soak*, then [promote](x.md)\n")
	p := &page{source: src, doc: markdown.Parser().Parse(text.NewReader(src))}
	got := p.headings()
	want := []string{"From Flux (init --from flux)", "Soak, then promote"}
	if !slices.Equal(got, want) {
		t.Errorf("headings = %q, want %q", got, want)
	}
}
