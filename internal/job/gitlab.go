package job

import (
	"cmp"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// GitLab is how Run and Rollback reach the project on GitLab, as GitLab
// CI's environment says it.
type GitLab struct {
	Token     string // GITLAB_TOKEN: a project or group access token, the API token and git password
	ServerURL string // CI_SERVER_URL; "" is https://gitlab.com
	Project   string // CI_PROJECT_PATH: group/name; "" reads it from origin
}

// defaultGitLabURL is gitlab.com, when neither --forge-url nor
// CI_SERVER_URL says otherwise.
const defaultGitLabURL = "https://gitlab.com"

// GitLabHost is a GitLab instance's server as far as its token is
// concerned: --forge-url, else CI_SERVER_URL, else gitlab.com.
func GitLabHost(serverURL string) Host {
	return Host{Name: "GitLab", URL: serverURL, Var: "CI_SERVER_URL", Default: defaultGitLabURL,
		Example: "https://gitlab.example.com",
		Hint:    "or, for a self-managed GitLab, set CI_SERVER_URL (or --forge-url) to its URL"}
}

// GitLabSettings are o.GitLab with --forge-url as the instance's URL.
func (o *Options) GitLabSettings() GitLab {
	gl := o.GitLab
	if o.Forge.URL != "" {
		gl.ServerURL = strings.TrimSuffix(o.Forge.URL, "/")
	}
	return gl
}

// gitlabConnection is how run and rollback reach the project on GitLab:
// GITLAB_TOKEN, the instance (--forge-url, CI_SERVER_URL, gitlab.com) and
// the project (CI_PROJECT_PATH, else origin's path). origin must be on the
// instance's host: the token goes nowhere else.
func gitlabConnection(o *Options, or origin, log *slog.Logger) (gitops.Options, bool, error) {
	gl := o.GitLabSettings()
	server := strings.TrimSuffix(cmp.Or(gl.ServerURL, defaultGitLabURL), "/")
	c := gitops.Options{Forge: gitops.GitLab, APIURL: server, Token: gl.Token, Repository: gl.Project, Logger: log}
	if err := checkRepoDir(o.Repo); err != nil {
		return c, false, err
	}
	host := GitLabHost(server)
	origin, err := or.url, or.err
	switch {
	case err == nil:
		// GitLab CI's checkout has the job token in origin's URL: git
		// gets GITLAB_TOKEN instead, and no message quotes it.
		c.URL = gitops.RedactURL(origin)
	case c.Repository != "":
		// As GitLab CI's CI_REPOSITORY_URL is built, without the job token.
		c.URL = server + "/" + c.Repository + ".git"
	default:
		return c, false, explain(err, "%s has no git remote `origin`: run inside a clone of the GitLab project, "+
			"or set CI_PROJECT_PATH to its full path (and CI_SERVER_URL for a self-managed GitLab)", dirName(o.Repo))
	}
	if err := host.CheckRemote(c.URL); err != nil {
		return c, false, err
	}
	if c.Repository == "" {
		if c.Repository, err = forge.RepoPath(c.URL, server); err != nil {
			return c, false, fmt.Errorf("%w: set CI_PROJECT_PATH to the project's full path", err)
		}
	}
	return c, true, nil
}

// explainGitLab says what to do about GitLab's and git's refusals, in
// one line naming the instance; any other failure to reach GitLab leaves
// the run partly done (exit 2).
func explainGitLab(err error, c gitops.Options) error {
	host := c.APIURL
	if u, perr := url.Parse(c.APIURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	var he *forge.HTTPError
	var unknownCA x509.UnknownAuthorityError
	switch {
	case errors.Is(err, gitops.ErrNoRepository):
		return explain(err, "GitLab at %s has no project %s that this token can see (404): check CI_PROJECT_PATH (or origin's URL) "+
			"and that GITLAB_TOKEN is a member of the project", host, c.Repository)
	case errors.As(err, &he) && he.Status == http.StatusUnauthorized:
		return explain(err, "GitLab at %s rejected GITLAB_TOKEN (%s): it is expired, revoked or mistyped; "+
			"create a new project or group access token with the api scope and set GITLAB_TOKEN to it", host, status(http.StatusUnauthorized, cmp.Or(he.Message, "Unauthorized")))
	case errors.As(err, &he) && he.Status == http.StatusForbidden:
		return explain(err, "GitLab at %s refused GITLAB_TOKEN on %s (%s): give the token the api scope and at least the Developer role "+
			"(a read_api token, a Reporter, or the CI job token CI_JOB_TOKEN cannot open merge requests)", host, c.Repository, status(http.StatusForbidden, cmp.Or(he.Message, "Forbidden")))
	case errors.As(err, &unknownCA):
		return explain(err, "GitLab at %s presented a certificate from an authority this machine does not trust: "+
			"point SSL_CERT_FILE at a bundle that holds the instance's CA (or add its directory to SSL_CERT_DIR)", host)
	case errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed):
		return explain(err, "the git remote %s refused GITLAB_TOKEN: check that it is valid, not expired, and has the write_repository "+
			"(or api) scope and the Developer role", gitops.RedactURL(c.URL))
	}
	return &PartialError{err}
}

// explainFailures says what to do about the pull requests a run could
// not make because the host refused the token (GitHub's workflow token
// without pull-requests: write, a read_api GitLab token, a Bitbucket or
// Azure DevOps token without a write scope): each in one line naming the
// host and the variable, as its explain function words a refusal of the
// whole run, on every host alike. The others were still made.
func explainFailures(res *gitops.Result, c gitops.Options) {
	for i, err := range res.Failed {
		var pe *PartialError
		e := explainForge(err, c)
		if errors.As(e, &pe) {
			continue
		}
		// The explanation replaces the message; the branch it failed on
		// (the lifecycle's "BRANCH: ..." prefix, which has no space, as
		// no branch name has) still heads it.
		if branch, _, ok := strings.Cut(err.Error(), ": "); ok && branch != "" && !strings.ContainsAny(branch, " \t") {
			e = fmt.Errorf("%s: %w", branch, e)
		}
		res.Failed[i] = e
	}
}

// explainers are each host's explain function: what to do about its and
// its git's refusals, in its words; any other failure is a *PartialError.
var explainers = map[gitops.Kind]func(error, gitops.Options) error{
	gitops.GitHub:         explainGitHub,
	gitops.GitLab:         explainGitLab,
	gitops.Gitea:          explainGitea,
	forge.Bitbucket:       explainBitbucket,
	forge.BitbucketServer: explainBitbucket,
	forge.Azure:           explainAzure,
}

// explainForge explains err by c's host ("" is GitHub); a host without an
// explain function leaves the run partly done.
func explainForge(err error, c gitops.Options) error {
	explain, ok := explainers[cmp.Or(c.Forge, gitops.GitHub)]
	if !ok {
		return &PartialError{err}
	}
	return explain(err, c)
}
