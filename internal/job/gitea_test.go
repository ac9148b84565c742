package job

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
)

// TestGiteaConnectionKeepsTheToken: GITEA_TOKEN goes to the Gitea
// server's host only; without GITEA_SERVER_URL or --forge-url the server is
// the one origin is on (issue 27), at a path too.
func TestGiteaConnectionKeepsTheToken(t *testing.T) {
	for _, tc := range []struct {
		name, origin, server string
		wantAPI, want        string
	}{
		{"server from origin", "https://gitea.example.com/acme/gitops.git", "", "https://gitea.example.com", ""},
		{"server at a path from origin", "https://example.com/gitea/acme/gitops.git", "", "https://example.com/gitea", ""},
		{"server from an ssh origin", "git@gitea.example.com:acme/gitops.git", "", "https://gitea.example.com", ""},
		{"another host", "https://gitea.example.com/acme/gitops.git", "https://git.acme.example", "", "is on gitea.example.com:443, not on the Gitea server git.acme.example"},
		{"its host", "https://gitea.example.com/acme/gitops.git", "https://gitea.example.com", "https://gitea.example.com", ""},
		{"its path", "https://example.com/gitea/acme/gitops.git", "https://example.com/gitea/", "https://example.com/gitea", ""},
		{"outside its path", "https://example.com/other/acme/gitops.git", "https://example.com/gitea", "", "is not under the Gitea server's path /gitea"},
	} {
		dir := t.TempDir()
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", tc.origin}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		o := &Options{Repo: dir, Forge: Forge{Kind: gitops.Gitea}, Gitea: Gitea{Token: "gitea_t0ken", ServerURL: tc.server}}
		conn, ok, err := giteaConnection(o, readOrigin(dir), nil)
		switch {
		case tc.want == "" && (err != nil || !ok || conn.Repository != "acme/gitops" || conn.APIURL != tc.wantAPI):
			t.Errorf("%s: %+v %v %v", tc.name, conn, ok, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "gitea_t0ken") {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
	}
}
