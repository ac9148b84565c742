package forge

import "strings"

// Env is what the environment says of the host, by the variables each
// host's CI sets.
type Env struct {
	GitHubActions bool // GITHUB_ACTIONS=true
	// GitLab CI: CI_SERVER_URL and CI_PROJECT_PATH; GITLAB_TOKEN is set.
	GitLabServerURL, GitLabProject string
	GitLabToken                    bool
	// Gitea and Forgejo Actions (GITEA_ACTIONS, FORGEJO_ACTIONS), which set
	// GITHUB_* too; GITEA_TOKEN or FORGEJO_TOKEN is set.
	GiteaActions, GiteaToken bool
	ForgejoActions           bool // FORGEJO_ACTIONS=true: Forgejo's own
	// AzureRepos is Azure Pipelines building an Azure Repos repository
	// (BUILD_REPOSITORY_PROVIDER=TfsGit: a pipeline may build a GitHub
	// one too); AzureToken is AZURE_DEVOPS_TOKEN set.
	AzureRepos, AzureToken bool
	// BitbucketPipelines is Bitbucket Pipelines (BITBUCKET_WORKSPACE and
	// BITBUCKET_REPO_SLUG set), which runs on Bitbucket Cloud only;
	// BitbucketToken is BITBUCKET_TOKEN set (Cloud), BitbucketServerToken
	// BITBUCKET_SERVER_TOKEN (Data Center).
	BitbucketPipelines, BitbucketToken, BitbucketServerToken bool
}

// Choice is the host a repository is on, and what said so ("--forge
// gitlab", "CI_SERVER_URL", "origin on gitlab.com", "the default").
type Choice struct {
	Kind Kind
	Why  string
}

// Guessed reports that only origin's host name said so: no flag, CI or
// token of the host's own.
func (c Choice) Guessed() bool { return strings.HasPrefix(c.Why, "origin on ") }

// Choose is the host the repository is on, decided once for run, serve,
// rollback and init alike: flag (--forge); else the CI the run is in
// (Gitea's and Forgejo's Actions before GitHub's, whose variables they
// imitate; then GitLab CI, GitHub Actions, Bitbucket Pipelines, Azure
// Pipelines building an Azure Repos repository); else a host's token
// variable (GITLAB_TOKEN, GITEA_TOKEN, BITBUCKET_TOKEN,
// BITBUCKET_SERVER_TOKEN, AZURE_DEVOPS_TOKEN); else origin's host when it
// is a well-known one (github.com, gitlab.com, gitlab.*, codeberg.org,
// gitea.com, gitea.*, forgejo.*, bitbucket.org, dev.azure.com,
// *.visualstudio.com); else GitHub, as before there was a choice. A GitLab
// guessed from origin alone yields to GitHub when GitHub credentials are
// set (githubCreds): GitHub's token is then refused for that remote,
// before anything is sent.
func Choose(flag Kind, env Env, origin string, githubCreds bool) Choice {
	switch {
	case flag != "":
		return Choice{flag, "--forge " + string(flag)}
	case env.GiteaActions:
		return Choice{Gitea, "GITEA_ACTIONS"}
	case env.GitLabServerURL != "":
		return Choice{GitLab, "CI_SERVER_URL"}
	case env.GitHubActions:
		return Choice{GitHub, "GITHUB_ACTIONS"}
	case env.BitbucketPipelines:
		return Choice{Bitbucket, "BITBUCKET_WORKSPACE"}
	case env.AzureRepos:
		return Choice{Azure, "BUILD_REPOSITORY_PROVIDER=TfsGit"}
	case env.GitLabToken:
		return Choice{GitLab, "GITLAB_TOKEN"}
	case env.GiteaToken:
		return Choice{Gitea, "GITEA_TOKEN"}
	case env.BitbucketToken:
		return Choice{Bitbucket, "BITBUCKET_TOKEN"}
	case env.BitbucketServerToken:
		return Choice{BitbucketServer, "BITBUCKET_SERVER_TOKEN"}
	case env.AzureToken:
		return Choice{Azure, "AZURE_DEVOPS_TOKEN"}
	}
	_, host, _, _ := RemoteHost(origin)
	switch {
	case host == "github.com":
		return Choice{GitHub, "origin on " + host}
	case host == "gitlab.com" || strings.HasPrefix(host, "gitlab."):
		if githubCreds {
			return Choice{GitHub, "GitHub credentials (origin on " + host + ")"}
		}
		return Choice{GitLab, "origin on " + host}
	case host == "codeberg.org" || host == "gitea.com" || strings.HasPrefix(host, "gitea.") || strings.HasPrefix(host, "forgejo."):
		return Choice{Gitea, "origin on " + host}
	case host == "bitbucket.org":
		return Choice{Bitbucket, "origin on " + host}
	case host == "dev.azure.com" || host == "ssh.dev.azure.com" || strings.HasSuffix(host, ".visualstudio.com"):
		return Choice{Azure, "origin on " + host}
	}
	return Choice{GitHub, "the default"}
}
