package job

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
)

// TestChooseForge: the flag, then the CI (Gitea's and Forgejo's Actions
// before GitHub's, whose variables they set too), then token variables,
// then origin's well-known host, then GitHub.
func TestChooseForge(t *testing.T) {
	gh := "https://github.com/acme/gitops.git"
	for _, tc := range []struct {
		name   string
		f      Forge
		remote string
		want   gitops.Kind
		why    string
	}{
		{"flag wins", Forge{Kind: gitops.GitLab, Env: ForgeEnv{GitHubActions: true}}, gh, gitops.GitLab, "--forge gitlab"},
		{"Gitea Actions over GITHUB_*", Forge{Env: ForgeEnv{GitHubActions: true, GiteaActions: true}}, "", gitops.Gitea, "GITEA_ACTIONS"},
		{"GitLab CI", Forge{Env: ForgeEnv{GitLabServerURL: "https://gitlab.example.com", GitLabProject: "acme/gitops"}}, "", gitops.GitLab, "CI_SERVER_URL"},
		{"GitHub Actions", Forge{Env: ForgeEnv{GitHubActions: true, GitLabToken: true}}, "", gitops.GitHub, "GITHUB_ACTIONS"},
		{"GITLAB_TOKEN", Forge{Env: ForgeEnv{GitLabToken: true}}, gh, gitops.GitLab, "GITLAB_TOKEN"},
		{"origin on gitlab.com", Forge{}, "git@gitlab.com:acme/gitops.git", gitops.GitLab, "origin on gitlab.com"},
		{"origin on codeberg", Forge{}, "https://codeberg.org/acme/gitops.git", gitops.Gitea, "origin on codeberg.org"},
		{"origin on github.com", Forge{}, gh, gitops.GitHub, "origin on github.com"},
		{"a host of its own", Forge{}, "https://git.example.com/acme/gitops.git", gitops.GitHub, "the default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if k, why := ChooseForge(tc.f, tc.remote); k != tc.want || why != tc.why {
				t.Errorf("ChooseForge = %s (%s), want %s (%s)", k, why, tc.want, tc.why)
			}
		})
	}
	// Guessed from origin alone, a host leaves the run as it was: GitHub's
	// token is refused for that remote by CheckRemote, as before.
	if err := ForgeSupported(Forge{}, "git@gitlab.com:acme/gitops.git"); err != nil {
		t.Errorf("origin on gitlab.com alone: %v", err)
	}
	if err := ForgeSupported(Forge{Env: ForgeEnv{GitLabToken: true}}, ""); err != nil {
		t.Errorf("GITLAB_TOKEN: %v, want GitLab supported", err)
	}
	if err := ForgeSupported(Forge{Env: ForgeEnv{GiteaToken: true}}, ""); err != nil {
		t.Errorf("GITEA_TOKEN: %v, want Gitea supported", err)
	}
}

// TestHostCheckRemote: another host's server refuses a remote elsewhere in
// its own words.
func TestHostCheckRemote(t *testing.T) {
	h := Host{Name: "GitLab", URL: "https://gitlab.example.com", Var: "CI_SERVER_URL", Default: "https://gitlab.com", Example: "https://gitlab.example.com", Hint: "or set CI_SERVER_URL"}
	if err := h.CheckRemote("https://gitlab.example.com/acme/gitops.git"); err != nil {
		t.Errorf("own host: %v", err)
	}
	err := h.CheckRemote("https://github.com/acme/gitops.git")
	if err == nil || !strings.Contains(err.Error(), "not on the GitLab server gitlab.example.com (CI_SERVER_URL, default https://gitlab.com): the GitLab token") {
		t.Errorf("other host: %v", err)
	}
}

// TestForgeURL: --forge-url is GitHub's server, with the API beneath it.
func TestForgeURL(t *testing.T) {
	o := Options{Forge: Forge{URL: "https://ghe.example.com/"}}
	if gh := o.GitHubSettings(); gh.ServerURL != "https://ghe.example.com" || gh.APIURL != "https://ghe.example.com/api/v3" {
		t.Errorf("GitHubSettings = %+v", gh)
	}
	o.GitHub.APIURL = "https://api.ghe.example.com"
	if gh := o.GitHubSettings(); gh.APIURL != "https://api.ghe.example.com" {
		t.Errorf("GITHUB_API_URL set: APIURL = %s", gh.APIURL)
	}
}
