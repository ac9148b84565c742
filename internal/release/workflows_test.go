package release

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestWorkflowsLint runs actionlint over every workflow, the release
// workflow included (cmd/bot's TestActionlint covers ci.yml, the example
// and action.yml's interface).
func TestWorkflowsLint(t *testing.T) {
	proj, err := actionlint.NewProject(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if len(files) < 2 {
		t.Fatalf("workflows %v: want ci.yml and release.yml at least", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.Lint(f, b, proj)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
}

// usesLine is one `uses:` with an optional trailing comment.
var usesLine = regexp.MustCompile(`^\s*(?:-\s*)?uses:\s*(\S+)\s*(?:#\s*(.*))?$`)

// pinned is owner/repo[/path]@<commit SHA> # <tag>: a tag can be moved to
// other code after review, a commit cannot; the comment says which release
// the SHA is, for readers and for Dependabot and Renovate, which update both.
var pinned = regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$`)

// TestActionsPinnedByCommit: every third-party action in our workflows, the
// example users copy, and action.yml is pinned by commit with its tag beside
// it. The one exception is the example's imagebot/imagebot@v1, our own
// release tag, which users choose how to pin.
func TestActionsPinnedByCommit(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "*", "*.yml"))
	files = append(files, filepath.Join(repoRoot, "action.yml"))
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			m := usesLine.FindStringSubmatch(line)
			if m == nil || strings.HasPrefix(m[1], "./") || strings.HasPrefix(m[1], "imagebot/imagebot@") {
				continue
			}
			seen++
			if !pinned.MatchString(m[1]) {
				t.Errorf("%s:%d: %s is not pinned by commit SHA", f, i+1, m[1])
			} else if !regexp.MustCompile(`^v\d+(\.\d+)*$`).MatchString(m[2]) {
				t.Errorf("%s:%d: %s has no `# vX.Y.Z` comment naming its release", f, i+1, m[1])
			}
		}
	}
	if seen < 5 {
		t.Errorf("found %d action references; the pattern no longer matches the files", seen)
	}
}
