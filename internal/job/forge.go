package job

import (
	"fmt"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Forge says which git host the repository is on: --forge and
// --forge-url, else what the CI environment and origin's URL say
// (forge.Choose).
type Forge struct {
	Kind gitops.Kind // --forge; "" chooses
	// URL is --forge-url, the host's web URL: for GitHub, the server
	// (GITHUB_SERVER_URL), whose API is URL/api/v3 unless GITHUB_API_URL
	// says otherwise.
	URL string
	Env ForgeEnv
}

// ForgeEnv is what the environment says of the host (forge.Env).
type ForgeEnv = forge.Env

// HostOf is the host a repository whose remote is remote is on
// (forge.Choose): the one decision run, serve, rollback and init act on.
// GitHub credentials make a GitLab guessed from remote's name alone
// GitHub's, whose token is then refused for that remote.
func (o *Options) HostOf(remote string) forge.Choice {
	return forge.Choose(o.Forge.Kind, o.Forge.Env, remote, o.GitHub.Token != "" || o.GitHub.App != nil)
}

// ForgeSupported refuses a host imagebot does not speak to yet, when the
// run would speak to it: --forge names it, or its CI or token says so. A
// host guessed from origin's URL alone, with no credentials of its own,
// leaves the run as it was (GitHub's token is then refused for that
// remote by CheckRemote).
func ForgeSupported(f Forge, remote string) error {
	return supported(forge.Choose(f.Kind, f.Env, remote, false))
}

// supported is ForgeSupported's rule on a host already chosen.
func supported(c forge.Choice) error {
	if slices.Contains(forge.Kinds, c.Kind) || c.Guessed() {
		return nil
	}
	return explain(gitops.ErrNotSupported, "the repository is on %s (%s), which imagebot does not speak to yet: "+
		"GitHub, GitLab, Gitea and Forgejo, Bitbucket Cloud and Data Center, and Azure DevOps are supported "+
		"(--forge github, gitlab, gitea, bitbucket, bitbucket-server, azure)", forgeName(c.Kind), c.Why)
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
	case forge.Azure:
		return "Azure DevOps"
	case forge.Bitbucket:
		return "Bitbucket Cloud"
	case forge.BitbucketServer:
		return "Bitbucket Data Center"
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

// PinForge refuses flag (--forge's value) when it names another host than
// kind, the one host a flag speaks to (serve's --gitlab-group).
func PinForge(flag string, kind gitops.Kind) error {
	if flag != "" && gitops.Kind(flag) != kind {
		return fmt.Errorf("--forge %s names another host than %s", flag, kind)
	}
	return nil
}
