package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/google/go-github/v60/github"
	"github.com/imagebot/imagebot/internal/gitops"
)

// connection says which GitHub repository run works on and how to reach
// it: the environment GitHub Actions sets, and the checkout's origin. A
// directory that is no clone will do when GITHUB_REPOSITORY names the
// repository: run fetches what it needs into memory anyway. The remote must
// be on the GitHub server's host (checkForgeHost): the token goes nowhere else.
func connection(repo string, env environ) (gitops.Options, error) {
	c := gitops.Options{APIURL: env.GitHubAPIURL, Token: env.GitHubToken, Repository: env.GitHubRepository}
	if err := checkRepoDir(repo); err != nil {
		return c, err
	}
	origin, err := gitops.OriginURL(repo)
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
		c.URL = strings.TrimSuffix(cmp.Or(env.GitHubServerURL, defaultServerURL), "/") + "/" + c.Repository + ".git"
		return c, checkForgeHost(c.URL, env)
	default:
		return c, err
	}
	if err := checkForgeHost(origin, env); err != nil {
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
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusUnauthorized:
			return explain(err, "GitHub rejected the token (401 %s): check that GITHUB_TOKEN is valid and not expired", cmp.Or(er.Message, "Unauthorized"))
		case http.StatusNotFound:
			if strings.HasSuffix(strings.TrimSuffix(er.Response.Request.URL.Path, "/"), "/repos/"+c.Repository) {
				return explain(err, "GitHub has no repository %s that this token can see (404 %s): check GITHUB_REPOSITORY (or origin's URL) and the token's access to the repository",
					c.Repository, cmp.Or(er.Message, "Not Found"))
			}
		}
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return explain(err, "the git remote %s refused GITHUB_TOKEN (authentication required): check that it is valid, not expired, and may push to the repository", gitops.RedactURL(c.URL))
	}
	return &partialError{err}
}
