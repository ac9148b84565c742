package job

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
)

// TestGitLabAtAPath: a self-managed GitLab installed under a path
// (CI_SERVER_URL or --forge-url https://host/gitlab) gets the project that
// follows the path in origin's URL, group/proj, not gitlab/group/proj
// (issue 27), and a remote outside the path never gets the token.
func TestGitLabAtAPath(t *testing.T) {
	for _, tc := range []struct {
		name, origin, server, forgeURL string
		want, wantErr                  string
	}{
		{"CI_SERVER_URL", "https://ci:j0b@host/gitlab/group/sub/proj.git", "https://host/gitlab", "", "group/sub/proj", ""},
		{"--forge-url", "https://host/gitlab/group/proj.git", "", "https://host/gitlab", "group/proj", ""},
		{"ssh origin", "git@host:group/proj.git", "https://host/gitlab", "", "group/proj", ""},
		{"outside the path", "https://host/other/group/proj.git", "https://host/gitlab", "", "", "is not under the GitLab server's path /gitlab"},
	} {
		dir := t.TempDir()
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", tc.origin}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		o := &Options{Repo: dir, Forge: Forge{Kind: gitops.GitLab, URL: tc.forgeURL}, GitLab: GitLab{Token: "glpat-t0ken", ServerURL: tc.server}}
		c, ok, err := gitlabConnection(o, readOrigin(dir), nil)
		switch {
		case tc.wantErr == "" && (err != nil || !ok || c.Repository != tc.want || c.APIURL != "https://host/gitlab"):
			t.Errorf("%s: %+v %v %v", tc.name, c, ok, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
		if err != nil && (strings.Contains(err.Error(), "glpat-t0ken") || strings.Contains(err.Error(), "j0b")) {
			t.Errorf("%s: a token is in %v", tc.name, err)
		}
	}
}

// TestHostAtAPath: every host's server may live under a path; its token
// goes to remotes under that path only, and GitHub Enterprise's API is
// beneath it.
func TestHostAtAPath(t *testing.T) {
	for _, h := range []Host{GitHubHost("https://example.com/github"), GitLabHost("https://example.com/github/"), GiteaHost("https://example.com/github")} {
		if err := h.CheckRemote("https://example.com/github/acme/gitops.git"); err != nil {
			t.Errorf("%s under its path: %v", h.Name, err)
		}
		if err := h.CheckRemote("git@example.com:acme/gitops.git"); err != nil {
			t.Errorf("%s over ssh: %v", h.Name, err)
		}
		for _, r := range []string{"https://example.com/acme/gitops.git", "https://example.com/githubx/acme/gitops.git"} {
			if err := h.CheckRemote(r); err == nil || !strings.Contains(err.Error(), "not under the "+h.Name+" server's path /github") {
				t.Errorf("%s: %s: %v", h.Name, r, err)
			}
		}
	}
	o := Options{Forge: Forge{URL: "https://example.com/github"}}
	if gh := o.GitHubSettings(); gh.ServerURL != "https://example.com/github" || gh.APIURL != "https://example.com/github/api/v3" {
		t.Errorf("GitHubSettings = %+v", gh)
	}
}
