package job

import (
	"strings"
	"testing"
)

// TestForgeSupported: a host guessed from origin alone leaves the run as
// it was; a host's token says it is spoken to (forge.Choose decides:
// TestChoose in forge).
func TestForgeSupported(t *testing.T) {
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
