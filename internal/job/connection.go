package job

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// forgeConnection is how run and rollback reach the repository on its
// host: origin is read once, the host chosen once (Options.AccessFor), and
// both handed to the host's connection: GitLab's, Gitea's, or GitHub's
// with GITHUB_TOKEN or a GitHub App, through the checkout's origin or
// GITHUB_REPOSITORY. Without the host's token (acc.Credentials) conn is
// not set: the caller previews, or refuses with acc.NoToken.
func forgeConnection(o *Options, log *slog.Logger) (conn gitops.Options, acc Access, err error) {
	origin := readOrigin(o.Repo)
	acc = o.AccessFor(origin.url)
	if err := supported(acc.Choice); err != nil {
		return conn, acc, err
	}
	if !acc.Credentials() {
		return conn, acc, nil
	}
	conn, err = hostConnection(o, acc.Kind, origin, log)
	return conn, acc, err
}

// hostConnection is the connection to the repository on the host of kind.
func hostConnection(o *Options, kind gitops.Kind, origin origin, log *slog.Logger) (conn gitops.Options, err error) {
	var ok bool
	switch kind {
	case gitops.GitLab:
		conn, ok, err = gitlabConnection(o, origin, log)
	case gitops.Gitea:
		conn, ok, err = giteaConnection(o, origin, log)
	case forge.Bitbucket:
		conn, ok, err = bitbucketConnection(o, origin, log)
	case forge.BitbucketServer:
		conn, ok, err = bitbucketServerConnection(o, origin, log)
	case forge.Azure:
		conn, ok, err = azureConnection(o, origin, log)
	default:
		if conn, err = connection(o.Repo, origin, o.GitHubSettings()); err != nil {
			return conn, err
		}
		conn.Logger, conn.App = log, o.GitHub.App
		return conn, nil
	}
	if err == nil && !ok {
		err = errors.New("no connection to the git host") // a connection says why; never expected
	}
	return conn, err
}

// origin is a checkout's origin as a run reads it, once: its URL, or why
// there is none (no clone, no remote).
type origin struct {
	url string
	err error
}

func readOrigin(dir string) origin {
	u, err := gitops.OriginURL(dir)
	return origin{u, err}
}

// connection says which GitHub repository run works on and how to reach
// it: the environment GitHub Actions sets, and the checkout's origin. A
// directory that is no clone will do when GITHUB_REPOSITORY names the
// repository: run fetches what it needs into memory anyway. The remote must
// be on the GitHub server's host (CheckRemote): the token goes nowhere else.
func connection(repo string, or origin, gh GitHub) (gitops.Options, error) {
	c := gitops.Options{Forge: gitops.GitHub, APIURL: gh.APIURL, Token: gh.Token, Repository: gh.Repository}
	if err := checkRepoDir(repo); err != nil {
		return c, err
	}
	origin, err := or.url, or.err
	switch {
	case err == nil:
		c.URL = origin
	case errors.Is(err, git.ErrRemoteNotFound), errors.Is(err, git.ErrRepositoryNotExists):
		if c.Repository == "" {
			what := "has no git remote `origin`"
			if errors.Is(err, git.ErrRepositoryNotExists) {
				what = "is not a git clone"
			}
			return c, explain(err, "%s %s: run inside a clone of the GitHub repository, "+
				"or set GITHUB_REPOSITORY to its owner/name (and GITHUB_SERVER_URL for GitHub Enterprise)", dirName(repo), what)
		}
		// As actions/checkout builds the URL: the server, then owner/name.
		c.URL = strings.TrimSuffix(cmp.Or(gh.ServerURL, defaultServerURL), "/") + "/" + c.Repository + ".git"
		return c, CheckRemote(c.URL, gh.ServerURL)
	default:
		return c, err
	}
	if err := CheckRemote(origin, gh.ServerURL); err != nil {
		return c, err
	}
	if c.Repository == "" {
		if c.Repository, err = gitops.RepositoryFromURL(origin); err != nil {
			return c, fmt.Errorf("%w: set GITHUB_REPOSITORY to the repository's owner/name", err)
		}
	}
	return c, nil
}

// dirName names a directory in a message.
func dirName(dir string) string {
	if dir == "." {
		return "the current directory"
	}
	return dir
}

// explainGitHub says what to do about GitHub's and git's refusals; any
// other failure to reach GitHub leaves the run partly done (exit 2).
func explainGitHub(err error, c gitops.Options) error {
	var he *forge.HTTPError
	if errors.As(err, &he) {
		switch {
		case he.Status == http.StatusUnauthorized:
			return explain(err, "GitHub rejected the token (401 %s): check that GITHUB_TOKEN is valid and not expired", cmp.Or(he.Message, "Unauthorized"))
		case he.Status == http.StatusForbidden:
			// GITHUB_TOKEN without a write permission, or Actions not
			// allowed to open pull requests: GitHub says 403, not 401.
			return explain(err, "GitHub refused the token on %s (403 %s): a workflow's GITHUB_TOKEN needs permissions contents: write, pull-requests: write "+
				"(and issues: write for the dashboard), "+
				"and the repository (or organisation) must allow GitHub Actions to create pull requests (Settings > Actions > General); "+
				"a personal or App token needs the same access to the repository", c.Repository, cmp.Or(he.Message, "Forbidden"))
		case errors.Is(err, forge.ErrNoRepository):
			return explain(err, "GitHub has no repository %s that this token can see (404 %s): check GITHUB_REPOSITORY (or origin's URL) and the token's access to the repository",
				c.Repository, cmp.Or(he.Message, "Not Found"))
		}
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return explain(err, "the git remote %s refused GITHUB_TOKEN (authentication required): check that it is valid, not expired, and may push to the repository", gitops.RedactURL(c.URL))
	}
	return &PartialError{err}
}

// treeConfig reads the config from the tree run plans from: --config FILE
// when relative (a path in the repository), else .imagebot.yaml or
// .imagebot.yml at its root, else the defaults. An absolute --config is a
// file on disk, outside the repository.
func treeConfig(sess *gitops.Session, file string) (*config.Config, error) {
	where := tipName(sess)
	switch {
	case file == "":
		return config.FindFS(sess.FS(), where)
	case filepath.IsAbs(file):
		return config.Load(file)
	}
	cfg, err := config.LoadFS(sess.FS(), file, where)
	if errors.Is(err, fs.ErrNotExist) {
		// The file may well be in the checkout, which run never reads.
		return nil, explain(err, "--config %s: no such file in %s (run reads the config from the default branch's tip)", file, where)
	}
	return cfg, err
}

// tipName names the commit run plans from in messages: "main@1a2b3c4d5e6f".
func tipName(sess *gitops.Session) string { return sess.Base() + "@" + sess.Commit()[:12] }
