package job

import (
	"cmp"
	"context"
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

// Bitbucket is how Run and Rollback reach the repository on Bitbucket
// Cloud (BITBUCKET_TOKEN and BITBUCKET_USERNAME) or on a Bitbucket Data
// Center (BITBUCKET_SERVER_TOKEN and BITBUCKET_SERVER_URL).
type Bitbucket struct {
	Token    string // BITBUCKET_TOKEN: a Cloud API token with scopes
	Username string // BITBUCKET_USERNAME: the Atlassian account's e-mail
	// Repository is workspace/slug (Bitbucket Pipelines'
	// BITBUCKET_REPO_FULL_NAME); "" reads it from origin.
	Repository  string
	ServerToken string // BITBUCKET_SERVER_TOKEN: a Data Center HTTP access token
	ServerURL   string // BITBUCKET_SERVER_URL: the Data Center's root, at any path
}

// BitbucketGitUser is the git user of a Bitbucket Cloud API token, as
// Atlassian documents it (and the Cloud driver's GitCredentials say).
const BitbucketGitUser = "x-bitbucket-api-token-auth"

// Bitbucket Cloud's web and git host, and its API's.
const (
	defaultBitbucketURL    = "https://bitbucket.org"
	defaultBitbucketAPIURL = "https://api.bitbucket.org"
)

// BitbucketHost is Bitbucket Cloud's git host, bitbucket.org, unless
// --forge-url names another (a proxy, or a test's fake).
func BitbucketHost(serverURL string) Host {
	return Host{Name: "Bitbucket", URL: serverURL, Var: "--forge-url", Default: defaultBitbucketURL,
		Example: "https://bitbucket.example.com",
		Hint:    "or, for Bitbucket Data Center, use --forge bitbucket-server with BITBUCKET_SERVER_TOKEN"}
}

// BitbucketServerHost is a Bitbucket Data Center, which has no default:
// its URL must be said, or origin's.
func BitbucketServerHost(serverURL string) Host {
	return Host{Name: "Bitbucket Data Center", URL: serverURL, Var: "BITBUCKET_SERVER_URL (or --forge-url)",
		Example: "https://bitbucket.example.com",
		Hint:    "or set BITBUCKET_SERVER_URL (or --forge-url) to the server origin is on"}
}

// errNoBitbucketUsername refuses a Cloud API token without its account
// (the missing token's messages are hostAccesses').
var errNoBitbucketUsername = errors.New("BITBUCKET_USERNAME is not set: a Bitbucket Cloud API token (BITBUCKET_TOKEN) authenticates " +
	"with the Atlassian account's e-mail: set BITBUCKET_USERNAME to it")

// bitbucketServer is Bitbucket Cloud's git host and API: --forge-url
// serves as both (the API is its /2.0), else bitbucket.org and
// api.bitbucket.org.
func (o *Options) bitbucketServer() (server, api string) {
	if o.Forge.URL != "" {
		return strings.TrimSuffix(o.Forge.URL, "/"), strings.TrimSuffix(o.Forge.URL, "/")
	}
	return defaultBitbucketURL, defaultBitbucketAPIURL
}

// bitbucketDCServer is the Data Center's root: --forge-url, else
// BITBUCKET_SERVER_URL, else the server origin is on (what precedes
// /scm/ in an http(s) origin; an ssh origin's host over https).
func (o *Options) bitbucketDCServer(origin string) string {
	if s := cmp.Or(o.Forge.URL, o.Bitbucket.ServerURL); s != "" {
		return strings.TrimSuffix(s, "/")
	}
	origin = gitops.RedactURL(origin)
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		if before, _, ok := strings.Cut(u.Path, "/scm/"); ok {
			return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(before, "/")}).String()
		}
		return ""
	}
	if _, host, _, ok := forge.RemoteHost(origin); ok {
		return "https://" + host
	}
	return ""
}

// bitbucketConnection is how run and rollback reach a repository on
// Bitbucket Cloud: the API token with the account's e-mail, the
// repository from origin (https://[user@]bitbucket.org/ws/slug.git, or
// git@bitbucket.org:ws/slug.git). Git goes to the https clone URL on the
// git host, not to origin's URL as written: Bitbucket Pipelines' origin is
// plain http through its proxy, and an ssh origin takes no token.
func bitbucketConnection(o *Options, or origin, log *slog.Logger) (gitops.Options, bool, error) {
	server, api := o.bitbucketServer()
	c := gitops.Options{Forge: forge.Bitbucket, APIURL: api, Token: o.Bitbucket.Token, User: o.Bitbucket.Username,
		Repository: o.Bitbucket.Repository, Logger: log}
	if c.User == "" {
		return c, false, errNoBitbucketUsername
	}
	repo, err := bitbucketRepository(o, or, BitbucketHost(server), cloudRepository)
	if err != nil {
		return c, false, err
	}
	c.Repository = repo
	c.URL = server + "/" + repo + ".git"
	return c, true, nil
}

// bitbucketServerConnection is how run and rollback reach a repository
// on a Bitbucket Data Center: the HTTP access token, the server (at any
// path) and PROJECT/slug from origin (https://host/path/scm/proj/slug.git,
// or ssh://git@host:7999/proj/slug.git). Git goes to the server's https
// clone URL, as for Cloud.
func bitbucketServerConnection(o *Options, or origin, log *slog.Logger) (gitops.Options, bool, error) {
	server := o.bitbucketDCServer(or.url)
	c := gitops.Options{Forge: forge.BitbucketServer, APIURL: server, Token: o.Bitbucket.ServerToken, Logger: log}
	repo, err := bitbucketRepository(o, or, BitbucketServerHost(server), dcRepository)
	if err != nil {
		return c, false, err
	}
	c.Repository = repo
	project, slug, _ := strings.Cut(repo, "/")
	c.URL = server + "/scm/" + strings.ToLower(project) + "/" + slug + ".git"
	return c, true, nil
}

// bitbucketRepository is the repository origin names on host's server,
// read by parse; Bitbucket.Repository (Pipelines') when there is no
// origin. Origin must be on the server's host, whatever its scheme: the
// token goes to that host only.
func bitbucketRepository(o *Options, or origin, host Host, parse func(remote, server string) (string, error)) (string, error) {
	if err := checkRepoDir(o.Repo); err != nil {
		return "", err
	}
	if or.err != nil {
		if o.Bitbucket.Repository != "" && host.Name == "Bitbucket" {
			return o.Bitbucket.Repository, nil
		}
		return "", explain(or.err, "%s has no git remote `origin`: run inside a clone of the %s repository", dirName(o.Repo), host.Name)
	}
	server := cmp.Or(host.URL, host.Default)
	su, err := url.Parse(server)
	if err != nil || su.Host == "" {
		return "", host.CheckRemote(or.url) // says what the setting should be
	}
	if _, rhost, _, ok := forge.RemoteHost(or.url); !ok || rhost != strings.ToLower(su.Hostname()) {
		if err := host.CheckRemote(or.url); err != nil {
			return "", err
		}
		return "", fmt.Errorf("origin %s: want a clone of a repository on %s", gitops.RedactURL(or.url), su.Host)
	}
	return parse(gitops.RedactURL(or.url), server)
}

// cloudRepository is workspace/slug from a remote on Bitbucket Cloud.
func cloudRepository(remote, server string) (string, error) {
	p, err := forge.RepoPath(remote, server)
	if err != nil {
		return "", err
	}
	if strings.Count(p, "/") != 1 {
		return "", fmt.Errorf("remote %s: want https://bitbucket.org/WORKSPACE/REPOSITORY.git", gitops.RedactURL(remote))
	}
	return p, nil
}

// dcRepository is PROJECT/slug from a remote on a Data Center: an http(s)
// remote's path is scm/proj/slug under the server's, an ssh remote's
// proj/slug. Project keys are upper case (the clone URL writes them in
// lower case); a personal project (~user) is left as it is.
func dcRepository(remote, server string) (string, error) {
	p, err := forge.RepoPath(remote, server)
	if err != nil {
		return "", err
	}
	if u, err := url.Parse(remote); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		var ok bool
		if p, ok = strings.CutPrefix(p, "scm/"); !ok {
			return "", fmt.Errorf("remote %s: want %s/scm/PROJECT/REPOSITORY.git", gitops.RedactURL(remote), server)
		}
	}
	project, slug, _ := strings.Cut(p, "/")
	if strings.Contains(slug, "/") {
		return "", fmt.Errorf("remote %s: want %s/scm/PROJECT/REPOSITORY.git", gitops.RedactURL(remote), server)
	}
	if !strings.HasPrefix(project, "~") {
		project = strings.ToUpper(project)
	}
	return project + "/" + slug, nil
}

// BitbucketServerGitUser is who a Data Center's HTTP access token is, which
// git sends as the token's user name, for serve's clones and fetches: the
// server names the user on every answer (X-AUSERNAME), here the
// repository's at remote, a clone URL on the server. One request.
func (o *Options) BitbucketServerGitUser(ctx context.Context, remote string) (string, error) {
	server := o.bitbucketDCServer(remote)
	repo, err := dcRepository(gitops.RedactURL(remote), server)
	if err != nil {
		return "", err
	}
	c := gitops.Options{Forge: forge.BitbucketServer, URL: remote, Repository: repo, APIURL: server, Token: o.Bitbucket.ServerToken, Logger: o.logger()}
	f, err := forge.Open(ctx, c.Forge, forge.Config{URL: c.URL, Repository: repo, APIURL: server, Token: c.Token, Logger: c.Logger})
	if err != nil {
		return "", err
	}
	id, err := f.WhoAmI(ctx)
	if err != nil {
		return "", explainBitbucket(err, c)
	}
	return id.Login, nil
}

// explainBitbucket says what to do about Bitbucket's and git's refusals,
// in one line naming the host and the variable; any other failure leaves
// the run partly done (exit 2).
func explainBitbucket(err error, c gitops.Options) error {
	cloud := c.Forge == forge.Bitbucket
	name, tokenVar := "Bitbucket Data Center at "+c.APIURL, "BITBUCKET_SERVER_TOKEN"
	if cloud {
		name, tokenVar = "Bitbucket Cloud", "BITBUCKET_TOKEN"
	}
	var he *forge.HTTPError
	if errors.As(err, &he) {
		said := status(he.Status, cmp.Or(he.Message, he.Err.Error()))
		switch {
		case he.Status == http.StatusUnauthorized && cloud:
			return explain(err, "Bitbucket Cloud rejected BITBUCKET_TOKEN with BITBUCKET_USERNAME (%s): use an API token with scopes "+
				"(app passwords stopped working in June 2026), not expired or revoked, and the Atlassian account's e-mail as BITBUCKET_USERNAME", said)
		case he.Status == http.StatusUnauthorized:
			return explain(err, "%s rejected BITBUCKET_SERVER_TOKEN (%s): it is expired, revoked, mistyped, or lacks repository write permission; "+
				"create a new HTTP access token and set BITBUCKET_SERVER_TOKEN to it", name, said)
		case he.Status == http.StatusForbidden && cloud:
			return explain(err, "Bitbucket Cloud refused BITBUCKET_TOKEN on %s (%s): grant the API token read:repository:bitbucket, write:repository:bitbucket, "+
				"read:pullrequest:bitbucket, write:pullrequest:bitbucket, read:user:bitbucket, read:issue:bitbucket and write:issue:bitbucket, "+
				"and its account write access to the repository", c.Repository, said)
		case he.Status == http.StatusForbidden:
			return explain(err, "%s refused BITBUCKET_SERVER_TOKEN on %s (%s): give the token repository write permission, "+
				"and its user write access to the repository", name, c.Repository, said)
		case errors.Is(err, forge.ErrNoRepository):
			return explain(err, "%s has no repository %s that %s can see (404): check origin's URL and the token's access to the repository",
				name, c.Repository, tokenVar)
		}
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return explain(err, "the git remote %s refused %s (authentication required): check that it is valid, not expired, and may push to the repository",
			gitops.RedactURL(c.URL), tokenVar)
	}
	return &PartialError{err}
}
