package job

import (
	"fmt"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
)

// Forge says which git host the repository is on: --forge and
// --forge-url, else what the CI environment and origin's URL say
// (ChooseForge).
type Forge struct {
	Kind gitops.Kind // --forge; "" chooses
	// URL is --forge-url, the host's web URL: for GitHub, the server
	// (GITHUB_SERVER_URL), whose API is URL/api/v3 unless GITHUB_API_URL
	// says otherwise.
	URL string
	Env ForgeEnv
}

// ForgeEnv is what the environment says of the host, by the variables
// each host's CI sets.
type ForgeEnv struct {
	GitHubActions bool // GITHUB_ACTIONS=true
	// GitLab CI: CI_SERVER_URL and CI_PROJECT_PATH; GITLAB_TOKEN is set.
	GitLabServerURL, GitLabProject string
	GitLabToken                    bool
	// Gitea and Forgejo Actions (GITEA_ACTIONS, FORGEJO_ACTIONS), which set
	// GITHUB_* too; GITEA_TOKEN or FORGEJO_TOKEN is set.
	GiteaActions, GiteaToken bool
	ForgejoActions           bool // FORGEJO_ACTIONS=true: Forgejo's own
}

// ChooseForge is the host the repository is on, and what said so:
// --forge; else the CI the run is in (Gitea's and Forgejo's Actions before
// GitHub's, whose variables they imitate; then GitLab CI, GitHub
// Actions); else a host's token variable; else origin's host when it is a
// well-known one (github.com, gitlab.com, codeberg.org, gitea.com); else
// GitHub, as before there was a choice.
func ChooseForge(f Forge, remote string) (kind gitops.Kind, why string) {
	e := f.Env
	switch {
	case f.Kind != "":
		return f.Kind, "--forge " + string(f.Kind)
	case e.GiteaActions:
		return gitops.Gitea, "GITEA_ACTIONS"
	case e.GitLabServerURL != "":
		return gitops.GitLab, "CI_SERVER_URL"
	case e.GitHubActions:
		return gitops.GitHub, "GITHUB_ACTIONS"
	case e.GitLabToken:
		return gitops.GitLab, "GITLAB_TOKEN"
	case e.GiteaToken:
		return gitops.Gitea, "GITEA_TOKEN"
	}
	if _, host, _, ok := remoteHost(remote); ok {
		switch {
		case host == "github.com":
			return gitops.GitHub, "origin on " + host
		case host == "gitlab.com" || strings.HasPrefix(host, "gitlab."):
			return gitops.GitLab, "origin on " + host
		case host == "codeberg.org" || host == "gitea.com" || strings.HasPrefix(host, "gitea.") || strings.HasPrefix(host, "forgejo."):
			return gitops.Gitea, "origin on " + host
		}
	}
	return gitops.GitHub, "the default"
}

// ForgeSupported refuses a host imagebot does not speak to yet, when the
// run would speak to it: --forge names it, or its CI or token says so. A
// host guessed from origin's URL alone, with no credentials of its own,
// leaves the run as it was (GitHub's token is then refused for that
// remote by CheckRemote).
func ForgeSupported(f Forge, remote string) error {
	kind, why := ChooseForge(f, remote)
	if kind == gitops.GitHub || kind == gitops.GitLab || kind == gitops.Gitea || strings.HasPrefix(why, "origin on ") {
		return nil
	}
	return explain(gitops.ErrNotSupported, "the repository is on %s (%s), which imagebot does not speak to yet: "+
		"GitHub, GitLab, Gitea and Forgejo are supported (--forge github, --forge gitlab, --forge gitea)", forgeName(kind), why)
}

// forgeName is a host's kind as people write it.
func forgeName(k gitops.Kind) string {
	switch k {
	case gitops.GitHub:
		return "GitHub"
	case gitops.GitLab:
		return "GitLab"
	case gitops.Gitea:
		return "Gitea or Forgejo"
	}
	return fmt.Sprintf("%q", string(k))
}

// withForgeURL is gh with --forge-url as GitHub's server: the API is its
// /api/v3 (GitHub Enterprise Server), or api.github.com for github.com,
// unless GITHUB_API_URL is set.
func withForgeURL(gh GitHub, f Forge) GitHub {
	if f.URL == "" {
		return gh
	}
	server := strings.TrimSuffix(f.URL, "/")
	gh.ServerURL = server
	if gh.APIURL == "" && server != defaultServerURL {
		gh.APIURL = server + "/api/v3"
	}
	return gh
}

// GitHubSettings are o.GitHub with --forge-url applied: what run, rollback
// and serve reach GitHub with.
func (o *Options) GitHubSettings() GitHub { return withForgeURL(o.GitHub, o.Forge) }
