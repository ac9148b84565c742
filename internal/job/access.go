package job

import (
	"context"
	"fmt"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Command is the command a missing token stops: each host's message says
// what that command needs of the token.
type Command int

// The commands whose refusal without a token differs.
const (
	CmdRun      Command = iota // run (and each of serve's runs)
	CmdRollback                // rollback, which has no preview
	CmdServe                   // serve, at start, before it clones
)

// Access is what run, rollback and serve need to know of the host a
// repository is on, as far as its credentials go, from one choice of the
// host (HostOf): the caller acts on it and never asks the host's kind
// again. Kind and Why say which host and what said so (for the words the
// output uses, gitops.WordsOf).
type Access struct {
	forge.Choice
	// Server is the host's server the token goes to: CheckRemote refuses
	// any remote elsewhere, before anything is sent.
	Server Host
	// Token and TokenVar are the host's token and the variable it comes
	// from, for messages.
	Token, TokenVar string
	// User is git's user name for Token over https; "" where the host
	// takes the token alone. On Bitbucket Data Center it is the token's
	// own user, which LearnUser asks the server for.
	User string
	// App is GitHub's App, which serves instead of (and over) Token; nil on
	// every other host.
	App *gitops.App

	noToken   [3]error
	learnUser func(context.Context) (string, error)
}

// Credentials reports that the host's token (or, on GitHub, an App) is set.
func (a Access) Credentials() bool { return a.Token != "" || a.App != nil }

// NoToken is cmd's refusal when Credentials is false: it names the
// variable to set and what the token needs on this host. It is ErrNoToken
// (errors.Is).
func (a Access) NoToken(cmd Command) error { return a.noToken[cmd] }

// LearnUser sets User where the host's git user is the token's own
// (Bitbucket Data Center): one request to the server, which only a remote
// CheckRemote accepted should be sent. Elsewhere, or without a token, it
// does nothing.
func (a *Access) LearnUser(ctx context.Context) error {
	if a.learnUser == nil || a.Token == "" {
		return nil
	}
	user, err := a.learnUser(ctx)
	if err != nil {
		return fmt.Errorf("who %s is, for git: %w", a.TokenVar, err)
	}
	a.User = user
	return nil
}

// AccessFor is the access to the host a repository whose remote is
// remote ("" when there is none) is on: HostOf's choice, once, and that
// host's server, token and messages (hostAccesses).
func (o *Options) AccessFor(remote string) Access {
	c := o.HostOf(remote)
	h, ok := hostAccesses[c.Kind]
	if !ok { // refused by supported before any use; GitHub's, as before there was a choice
		h = hostAccesses[forge.GitHub]
	}
	a := h(o, remote)
	a.Choice = c
	return a
}

// noTokenError is a host's missing-token message, which is ErrNoToken.
type noTokenError string

func (e noTokenError) Error() string        { return string(e) }
func (e noTokenError) Is(target error) bool { return target == ErrNoToken }

// noTokens are a host's refusals by command, run's serving rollback too
// where the host's words do not name the command otherwise.
func noTokens(run, rollback, serve string) [3]error {
	return [3]error{CmdRun: noTokenError(run), CmdRollback: noTokenError(rollback), CmdServe: noTokenError(serve)}
}

// hostAccesses are each host's access, by kind: the one place that says,
// per host, which variable holds the token, how git sends it, and what to
// say when it is missing.
var hostAccesses = map[gitops.Kind]func(o *Options, remote string) Access{
	forge.GitHub: func(o *Options, _ string) Access {
		gh := o.GitHubSettings()
		return Access{Server: GitHubHost(gh.ServerURL), Token: gh.Token, TokenVar: "GITHUB_TOKEN", App: gh.App,
			noToken: noTokens(errNoGitHubToken, errNoGitHubRollbackToken, errNoGitHubServeToken)}
	},
	forge.GitLab: func(o *Options, _ string) Access {
		gl := o.GitLabSettings()
		return Access{Server: GitLabHost(gl.ServerURL), Token: gl.Token, TokenVar: "GITLAB_TOKEN", User: "oauth2",
			noToken: noTokens(errNoGitLabToken, errNoGitLabToken, errNoGitLabServeToken)}
	},
	forge.Gitea: func(o *Options, remote string) Access {
		return Access{Server: GiteaHost(o.giteaServer(remote)), Token: o.Gitea.Token, TokenVar: "GITEA_TOKEN",
			noToken: noTokens(errNoGiteaToken, errNoGiteaToken, errNoGiteaServeToken)}
	},
	forge.Bitbucket: func(o *Options, _ string) Access {
		server, _ := o.bitbucketServer()
		return Access{Server: BitbucketHost(server), Token: o.Bitbucket.Token, TokenVar: "BITBUCKET_TOKEN", User: BitbucketGitUser,
			noToken: noTokens(errNoBitbucketToken, errNoBitbucketToken, errNoBitbucketServeToken)}
	},
	forge.BitbucketServer: func(o *Options, remote string) Access {
		a := Access{Server: BitbucketServerHost(o.bitbucketDCServer(remote)), Token: o.Bitbucket.ServerToken, TokenVar: "BITBUCKET_SERVER_TOKEN",
			noToken: noTokens(errNoBitbucketServerToken, errNoBitbucketServerToken, errNoBitbucketServerServeToken)}
		if remote != "" {
			a.learnUser = func(ctx context.Context) (string, error) { return o.BitbucketServerGitUser(ctx, remote) }
		}
		return a
	},
	forge.Azure: func(o *Options, remote string) Access {
		return Access{Server: AzureHost(o.azureCollection(remote)), Token: o.Azure.Token, TokenVar: "AZURE_DEVOPS_TOKEN", User: "imagebot",
			noToken: noTokens(errNoAzureToken, errNoAzureToken, errNoAzureServeToken)}
	},
}

// The missing-token messages, by host and command. Run's and rollback's
// end "or use --dry-run" where a dry run previews without the token.
const (
	errNoGitHubToken = "GITHUB_TOKEN is not set: run needs a token that may push branches and open pull requests " +
		"(in GitHub Actions pass `token`/GITHUB_TOKEN; locally export GITHUB_TOKEN), or a GitHub App (IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY); or use --dry-run"
	errNoGitHubRollbackToken = "GITHUB_TOKEN is not set: rollback reads the default branch's history and opens a pull request, as run does " +
		"(a GitHub App's IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY work too)"
	errNoGitHubServeToken = "GITHUB_TOKEN is not set: serve needs a token that may push branches and open pull requests " +
		"(in Kubernetes from a Secret, as deploy/ shows), or a GitHub App (IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY); or use --dry-run"

	errNoGitLabToken = "GITLAB_TOKEN is not set: run needs a project or group access token with the api scope " +
		"and the Developer role (Settings > Access tokens; in GitLab CI, a masked CI/CD variable GITLAB_TOKEN). " +
		"The CI job token (CI_JOB_TOKEN) cannot open merge requests. Or use --dry-run"
	errNoGitLabServeToken = "GITLAB_TOKEN is not set: serve needs a GitLab project or group access token with the api scope " +
		"and the Developer role (in Kubernetes from a Secret, as deploy/ shows); or use --dry-run"

	errNoGiteaToken = "GITEA_TOKEN is not set: run needs a Gitea or Forgejo access token with the write:repository and write:issue scopes " +
		"(in Gitea or Forgejo Actions pass a secret as GITEA_TOKEN; locally export GITEA_TOKEN or FORGEJO_TOKEN); or use --dry-run"
	errNoGiteaServeToken = "GITEA_TOKEN is not set: serve needs a Gitea or Forgejo access token that may push branches and open pull requests; or use --dry-run"

	errNoBitbucketToken = "BITBUCKET_TOKEN is not set: run needs a Bitbucket Cloud API token with scopes " +
		"(id.atlassian.com, Security, Create API token with scopes, app Bitbucket): read:repository:bitbucket, write:repository:bitbucket, " +
		"read:pullrequest:bitbucket, write:pullrequest:bitbucket, read:user:bitbucket, and read:issue:bitbucket and write:issue:bitbucket for the dashboard; " +
		"app passwords stopped working in June 2026. Set BITBUCKET_USERNAME to the account's e-mail (in Bitbucket Pipelines, both as secured repository variables). Or use --dry-run"
	errNoBitbucketServeToken = "BITBUCKET_TOKEN is not set: serve needs a Bitbucket Cloud API token with scopes (app passwords stopped working in June 2026) " +
		"and BITBUCKET_USERNAME, the account's e-mail (docs/bitbucket.md names the scopes); or use --dry-run"

	errNoBitbucketServerToken = "BITBUCKET_SERVER_TOKEN is not set: run needs a Bitbucket Data Center HTTP access token " +
		"with repository write permission (Profile picture, Manage account, HTTP access tokens). Or use --dry-run"
	errNoBitbucketServerServeToken = "BITBUCKET_SERVER_TOKEN is not set: serve needs a Bitbucket Data Center HTTP access token with repository write permission; or use --dry-run"

	errNoAzureToken = "AZURE_DEVOPS_TOKEN is not set: run needs a personal access token with the Code (Read & Write) scope " +
		"(in Azure Pipelines, map the job's token into the step instead, as the pipeline init writes does: SYSTEM_ACCESSTOKEN set to $(System.AccessToken) " +
		"under the step's env, and give the build service Contribute, Create branch and Contribute to pull requests on the repository); or use --dry-run"
	errNoAzureServeToken = "AZURE_DEVOPS_TOKEN is not set: serve needs an Azure DevOps PAT with the Code (Read & Write) scope; or use --dry-run"
)
