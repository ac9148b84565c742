package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// bitbucketServeHost is serve's Bitbucket: Cloud's API token, which git
// takes with Atlassian's user for API tokens, or a Data Center's HTTP
// access token, which git takes as its user's password
// (job.BitbucketServerGitUser asks the server who that is, once, when
// serve starts: dataCenterUser).
func bitbucketServeHost(jo *job.Options, remote string, host job.Host) serveHost {
	if jo.HostOf(remote).Kind == gitops.Bitbucket {
		return serveHost{host: host, token: jo.Bitbucket.Token, tokenVar: "BITBUCKET_TOKEN", user: job.BitbucketGitUser,
			noToken: errors.New("BITBUCKET_TOKEN is not set: serve needs a Bitbucket Cloud API token with scopes (app passwords stopped working in June 2026) " +
				"and BITBUCKET_USERNAME, the account's e-mail (docs/bitbucket.md names the scopes); or use --dry-run")}
	}
	return serveHost{host: host, token: jo.Bitbucket.ServerToken, tokenVar: "BITBUCKET_SERVER_TOKEN", bitbucketDC: true, remote: remote,
		noToken: errors.New("BITBUCKET_SERVER_TOKEN is not set: serve needs a Bitbucket Data Center HTTP access token with repository write permission; or use --dry-run")}
}

// dataCenterUser sets sh's git user to the Data Center token's user, asked
// of the server on the repository at sh.remote, after checkServeHosts: the
// token goes to the server's host only.
func dataCenterUser(ctx context.Context, jo *job.Options, sh *serveHost) error {
	if !sh.bitbucketDC || sh.token == "" || sh.remote == "" {
		return nil
	}
	user, err := jo.BitbucketServerGitUser(ctx, sh.remote)
	if err != nil {
		return fmt.Errorf("serve: who BITBUCKET_SERVER_TOKEN is, for git: %w", err)
	}
	sh.user = user
	return nil
}
