package gitops

import "testing"

// Every host links a dashboard note to its file's line at the commit, on
// its own pages, and none before Repository said where they are (GitLab's
// and Gitea's: TestBlobURL in forge/gitlab and forge/gitea).
func TestBlobURL(t *testing.T) {
	const commit = "0123abcd"
	for _, c := range []struct {
		name string
		f    Forge
		want string
	}{
		{"GitHub", &hub{htmlURL: "https://github.com/o/r"}, "https://github.com/o/r/blob/0123abcd/deploy/my%20app.yaml#L12"},
	} {
		if got := c.f.BlobURL(commit, "deploy/my app.yaml", 12); got != c.want {
			t.Errorf("%s: BlobURL = %q, want %q", c.name, got, c.want)
		}
		if got, want := c.f.BlobURL(commit, "a.yaml", 0), c.want[:len(c.want)-len("deploy/my%20app.yaml#L12")]+"a.yaml"; got != want {
			t.Errorf("%s: BlobURL without a line = %q, want %q", c.name, got, want)
		}
	}
	for _, f := range []Forge{&hub{}} {
		if got := f.BlobURL(commit, "a.yaml", 1); got != "" {
			t.Errorf("%s before Repository: BlobURL = %q, want none", f.Name(), got)
		}
	}
}
