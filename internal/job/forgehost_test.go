package job

import (
	"strings"
	"testing"
)

// TestCheckRemote: which remotes the token may go to, for GitHub and an
// Enterprise server.
func TestCheckRemote(t *testing.T) {
	ghe := "https://GHE.example.com/"
	for _, tc := range []struct {
		server string
		remote string
		want   string // "" for accepted
	}{
		{"", "https://github.com/acme/gitops.git", ""},
		{"", "https://x-access-token:secret@github.com/acme/gitops", ""},
		{"", "git@github.com:acme/gitops.git", ""},
		{"", "ssh://git@github.com/acme/gitops.git", ""},
		{"", "/srv/git/gitops.git", ""},
		{"", "git@gitlab.com:acme/gitops.git", "is on gitlab.com, not on the GitHub server github.com"},
		{"", "https://gitlab.com/acme/gitops.git", "is on gitlab.com:443, not on the GitHub server github.com"},
		{"", "https://github.com.evil.example/acme/gitops.git", "is on github.com.evil.example:443"},
		{"", "https://github.com:8443/acme/gitops.git", "is on github.com:8443"},
		{"", "http://github.com:443/acme/gitops.git", "is plain http"},
		{"", "https://api.github.com/acme/gitops.git", "is on api.github.com:443"},
		{ghe, "https://ghe.example.com/acme/gitops.git", ""},
		{ghe, "git@ghe.example.com:acme/gitops.git", ""},
		{ghe, "https://github.com/acme/gitops.git", "is on github.com:443, not on the GitHub server ghe.example.com"},
		{"ghe.example.com", "https://ghe.example.com/a/b", "GITHUB_SERVER_URL \"ghe.example.com\": want the server's URL"},
	} {
		err := CheckRemote(tc.remote, tc.server)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s with %q: %v, want accepted", tc.remote, tc.server, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s with %q: %v, want %q", tc.remote, tc.server, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the error quotes the URL's password: %v", tc.remote, err)
		}
	}
}
