package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark/ast"
)

// TestWorkflowExample keeps the workflow that README.md and
// docs/github-actions.md show the file they tell readers to copy,
// .github/examples/imagebot.yml (less its opening comment, which says
// where to copy it).
func TestWorkflowExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".github", "examples", "imagebot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := string(data)
	for strings.HasPrefix(want, "#") {
		_, want, _ = strings.Cut(want, "\n")
	}
	for _, path := range []string{"README.md", "docs/github-actions.md"} {
		p := readPage(t, path)
		shown := 0
		ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			block, ok := n.(*ast.FencedCodeBlock)
			if !ok || !entering || string(block.Language(p.source)) != "yaml" {
				return ast.WalkContinue, nil
			}
			var b strings.Builder
			for i := range block.Lines().Len() {
				seg := block.Lines().At(i)
				b.Write(seg.Value(p.source))
			}
			if got := b.String(); strings.HasPrefix(got, "name: imagebot\n") {
				shown++
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s:%d: the workflow differs from .github/examples/imagebot.yml (-file +page):\n%s", path, p.line(block), diff)
				}
			}
			return ast.WalkContinue, nil
		})
		if shown == 0 {
			t.Errorf("%s shows no workflow (a yaml block starting with \"name: imagebot\")", path)
		}
	}
}
