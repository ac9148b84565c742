package job

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
)

// TestGiteaConnectionKeepsTheToken: GITEA_TOKEN goes to the Gitea
// server's host only, and a server must be named: there is no default.
func TestGiteaConnectionKeepsTheToken(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://gitea.example.com/acme/gitops.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for _, tc := range []struct {
		name, server, want string
	}{
		{"no server", "", "GITEA_SERVER_URL (or --forge-url) \"\": want the server's URL, such as https://gitea.example.com"},
		{"another host", "https://git.acme.example", "is on gitea.example.com:443, not on the Gitea server git.acme.example"},
		{"its host", "https://gitea.example.com", ""},
	} {
		o := &Options{Repo: dir, Forge: Forge{Kind: gitops.Gitea}, Gitea: Gitea{Token: "gitea_t0ken", ServerURL: tc.server}}
		conn, ok, err := giteaConnection(o, nil)
		switch {
		case tc.want == "" && (err != nil || !ok || conn.Repository != "acme/gitops" || conn.APIURL != tc.server):
			t.Errorf("%s: %+v %v %v", tc.name, conn, ok, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "gitea_t0ken") {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
	}
}
