package job

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Gitea is how Run and Rollback reach the repository on a Gitea or
// Forgejo server: GITEA_TOKEN (or FORGEJO_TOKEN), the server's URL
// (--forge-url, GITEA_SERVER_URL, or in their Actions GITHUB_SERVER_URL),
// and the repository (GITHUB_REPOSITORY in their Actions, else origin's).
type Gitea struct {
	Token      string // API token and git password
	ServerURL  string // the server's root: "https://gitea.example.com"
	Repository string // owner/name; "" reads it from origin
}

// GiteaHost is a Gitea or Forgejo server, which has no default: its URL
// must be said.
func GiteaHost(serverURL string) Host {
	return Host{Name: "Gitea", URL: serverURL, Var: "GITEA_SERVER_URL (or --forge-url)", Example: "https://gitea.example.com",
		Hint: "or set GITEA_SERVER_URL (or --forge-url) to the server origin is on"}
}

// giteaServer is the Gitea or Forgejo server's URL: --forge-url, else
// GITEA_SERVER_URL (FORGEJO_SERVER_URL), else the server origin is on
// (ServerFromRemote), as GitLab's project is read from origin. The token
// goes there as git's password anyway, so the API on the same server and
// path learns nothing more of it.
func (o *Options) giteaServer(origin string) string {
	if s := cmp.Or(o.Forge.URL, o.Gitea.ServerURL); s != "" {
		return strings.TrimSuffix(s, "/")
	}
	s, _ := forge.ServerFromRemote(gitops.RedactURL(origin))
	return s
}

// giteaConnection is how run and rollback reach the repository on Gitea
// or Forgejo. ok is false without a token. The remote must be on the
// server's host: the token goes nowhere else.
func giteaConnection(o *Options, or origin, log *slog.Logger) (conn gitops.Options, ok bool, err error) {
	if err := checkRepoDir(o.Repo); err != nil {
		return conn, false, err
	}
	origin, err := or.url, or.err
	server := o.giteaServer(origin)
	host := GiteaHost(server)
	conn = gitops.Options{Forge: gitops.Gitea, APIURL: server, Token: o.Gitea.Token, Repository: o.Gitea.Repository, Logger: log}
	switch {
	case err == nil:
		conn.URL = origin
	case errors.Is(err, git.ErrRemoteNotFound), errors.Is(err, git.ErrRepositoryNotExists):
		if conn.Repository == "" {
			return conn, false, explain(err, "%s has no git remote `origin`: run inside a clone of the Gitea repository, "+
				"or set GITHUB_REPOSITORY to its owner/name", dirName(o.Repo))
		}
		conn.URL = server + "/" + conn.Repository + ".git"
	default:
		return conn, false, err
	}
	if err := host.CheckRemote(conn.URL); err != nil {
		return conn, false, err
	}
	if conn.Repository == "" {
		if conn.Repository, err = gitops.RepositoryFromURL(origin); err != nil {
			return conn, false, fmt.Errorf("%w: set GITHUB_REPOSITORY to the repository's owner/name", err)
		}
	}
	return conn, true, nil
}

// explainGitea says what to do about Gitea's and git's refusals, naming
// the server; any other failure leaves the run partly done (exit 2).
func explainGitea(err error, c gitops.Options) error {
	var ge *forge.HTTPError
	if errors.As(err, &ge) {
		switch ge.Status {
		case http.StatusUnauthorized:
			return explain(err, "the Gitea server %s rejected the token (%s): check that GITEA_TOKEN (or FORGEJO_TOKEN) is valid and not expired or revoked",
				c.APIURL, status(ge.Status, ge.Message))
		case http.StatusForbidden:
			return explain(err, "the Gitea server %s refused the token (%s): give it the write:repository and write:issue scopes, "+
				"and a user with write access to %s", c.APIURL, status(ge.Status, ge.Message), c.Repository)
		case http.StatusNotFound:
			if strings.HasPrefix(err.Error(), "get repository ") {
				return explain(err, "the Gitea server %s has no repository %s that this token can see (404): check origin's URL (or GITHUB_REPOSITORY) "+
					"and the token's access to the repository", c.APIURL, c.Repository)
			}
		}
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return explain(err, "the git remote %s refused GITEA_TOKEN (authentication required): check that it is valid, not expired, and may push to the repository",
			gitops.RedactURL(c.URL))
	}
	return &PartialError{err}
}
