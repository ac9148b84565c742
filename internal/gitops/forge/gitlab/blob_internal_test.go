package gitlab

import "testing"

// GitLab links a dashboard note to its file's line at the commit under
// -/blob, and nothing before Repository said where the pages are.
func TestBlobURL(t *testing.T) {
	l := &lab{webURL: "https://gitlab.example.com/g/sub/r"}
	if got, want := l.BlobURL("0123abcd", "deploy/my app.yaml", 12), "https://gitlab.example.com/g/sub/r/-/blob/0123abcd/deploy/my%20app.yaml#L12"; got != want {
		t.Errorf("BlobURL = %q, want %q", got, want)
	}
	if got := (&lab{}).BlobURL("0123abcd", "a.yaml", 1); got != "" {
		t.Errorf("before Repository: BlobURL = %q, want none", got)
	}
}
