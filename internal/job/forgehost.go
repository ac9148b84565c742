package job

import "github.com/imagebot/imagebot/internal/gitops/forge"

// Host is a git host's server as far as its token is concerned
// (forge.Host): each host's constructor below words its settings.
type Host = forge.Host

// defaultServerURL is GitHub's, when GITHUB_SERVER_URL is not set.
const defaultServerURL = "https://github.com"

// GitHubHost is GitHub's server, GITHUB_SERVER_URL (default github.com).
func GitHubHost(serverURL string) Host {
	return Host{Name: "GitHub", URL: serverURL, Var: "GITHUB_SERVER_URL", Default: defaultServerURL,
		Example: "https://github.example.com",
		Hint:    "or, for GitHub Enterprise, set GITHUB_SERVER_URL and GITHUB_API_URL to its server"}
}

// CheckRemote refuses a git remote on another host than the GitHub
// server's (GITHUB_SERVER_URL, default https://github.com); see
// Host.CheckRemote.
func CheckRemote(remote, serverURL string) error { return GitHubHost(serverURL).CheckRemote(remote) }
