package github

import "testing"

// GitHub links a dashboard note to its file's line at the commit under
// blob, and nothing before Repository said where the pages are (every
// driver has its own TestBlobURL).
func TestBlobURL(t *testing.T) {
	h := &hub{htmlURL: "https://github.com/o/r"}
	if got, want := h.BlobURL("0123abcd", "deploy/my app.yaml", 12), "https://github.com/o/r/blob/0123abcd/deploy/my%20app.yaml#L12"; got != want {
		t.Errorf("BlobURL = %q, want %q", got, want)
	}
	if got, want := h.BlobURL("0123abcd", "a.yaml", 0), "https://github.com/o/r/blob/0123abcd/a.yaml"; got != want {
		t.Errorf("BlobURL without a line = %q, want %q", got, want)
	}
	if got := (&hub{}).BlobURL("0123abcd", "a.yaml", 1); got != "" {
		t.Errorf("before Repository: BlobURL = %q, want none", got)
	}
}
