package forge_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestChoose: the flag, then the CI (Gitea's and Forgejo's Actions before
// GitHub's, whose variables they set too), then token variables, then
// origin's well-known host, then GitHub; a GitLab guessed from origin alone
// yields to GitHub credentials, the one rule that run, serve, rollback and
// init share.
func TestChoose(t *testing.T) {
	gh := "https://github.com/acme/gitops.git"
	for _, tc := range []struct {
		name   string
		flag   forge.Kind
		env    forge.Env
		remote string
		creds  bool
		want   forge.Kind
		why    string
	}{
		{"flag wins", forge.GitLab, forge.Env{GitHubActions: true}, gh, true, forge.GitLab, "--forge gitlab"},
		{"Gitea Actions over GITHUB_*", "", forge.Env{GitHubActions: true, GiteaActions: true}, "", false, forge.Gitea, "GITEA_ACTIONS"},
		{"GitLab CI", "", forge.Env{GitLabServerURL: "https://gitlab.example.com", GitLabProject: "acme/gitops"}, "", true, forge.GitLab, "CI_SERVER_URL"},
		{"GitHub Actions", "", forge.Env{GitHubActions: true, GitLabToken: true}, "", false, forge.GitHub, "GITHUB_ACTIONS"},
		{"GITLAB_TOKEN", "", forge.Env{GitLabToken: true}, gh, true, forge.GitLab, "GITLAB_TOKEN"},
		{"origin on gitlab.com", "", forge.Env{}, "git@gitlab.com:acme/gitops.git", false, forge.GitLab, "origin on gitlab.com"},
		{"origin on gitlab.com, GitHub credentials", "", forge.Env{}, "https://gitlab.com/acme/gitops.git", true, forge.GitHub, "GitHub credentials (origin on gitlab.com)"},
		{"origin on codeberg", "", forge.Env{}, "https://codeberg.org/acme/gitops.git", false, forge.Gitea, "origin on codeberg.org"},
		{"origin on github.com", "", forge.Env{}, gh, false, forge.GitHub, "origin on github.com"},
		{"a host of its own", "", forge.Env{}, "https://git.example.com/acme/gitops.git", false, forge.GitHub, "the default"},
		{"a local path", "", forge.Env{}, "/srv/git/gitops", false, forge.GitHub, "the default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := forge.Choose(tc.flag, tc.env, tc.remote, tc.creds); c.Kind != tc.want || c.Why != tc.why {
				t.Errorf("Choose = %s (%s), want %s (%s)", c.Kind, c.Why, tc.want, tc.why)
			}
		})
	}
}
