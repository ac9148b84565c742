package gitea

import (
	"testing"

	"code.gitea.io/sdk/gitea"
)

// Gitea links a dashboard note to its file's line at the commit under
// src/commit, and nothing before Repository said where the pages are.
func TestBlobURL(t *testing.T) {
	g := &tea{repo: &gitea.Repository{HTMLURL: "https://gitea.example.com/o/r/"}}
	if got, want := g.BlobURL("0123abcd", "deploy/my app.yaml", 12), "https://gitea.example.com/o/r/src/commit/0123abcd/deploy/my%20app.yaml#L12"; got != want {
		t.Errorf("BlobURL = %q, want %q", got, want)
	}
	if got := (&tea{}).BlobURL("0123abcd", "a.yaml", 1); got != "" {
		t.Errorf("before Repository: BlobURL = %q, want none", got)
	}
}
