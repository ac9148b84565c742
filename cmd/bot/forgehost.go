package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// serveHost is the git host serve's repositories are on, and the token
// that clones and fetches them: GitLab's when --forge, GitLab CI or
// GITLAB_TOKEN say so (or the first --clone URL, or DIR's origin, is on a
// GitLab host and no GitHub credentials are set), the Gitea or Forgejo
// server's when the flags or the environment name one, else GitHub's.
type serveHost struct {
	host                  job.Host
	token, tokenVar, user string
	gitlab, gitea         bool
	bitbucketDC           bool   // user is the token's, asked of the server at remote
	remote                string // the first --clone URL, or DIR's origin
	noToken               error  // serve's refusal without token, where the host has its own
}

func serveHostOf(o *serveOptions, jo *job.Options) serveHost {
	remote := ""
	if len(o.Clones) > 0 {
		remote = o.Clones[0]
	} else if origin, err := gitops.OriginURL(o.Repo); err == nil {
		remote = origin
	}
	host := jo.ServerFor(remote)
	switch jo.HostOf(remote).Kind {
	case gitops.GitLab:
		return serveHost{host: host, token: jo.GitLab.Token, tokenVar: "GITLAB_TOKEN", user: "oauth2", gitlab: true}
	case gitops.Gitea:
		return serveHost{host: host, token: jo.Gitea.Token, tokenVar: "GITEA_TOKEN", gitea: true}
	case gitops.Bitbucket, gitops.BitbucketServer:
		return bitbucketServeHost(jo, remote, host)
	case job.AzureKind:
		job.SetUpGit(job.AzureKind) // serve clones before any run opens the host
		return serveHost{host: host, token: jo.Azure.Token, tokenVar: "AZURE_DEVOPS_TOKEN", user: "imagebot",
			noToken: errors.New("AZURE_DEVOPS_TOKEN is not set: serve needs an Azure DevOps PAT with the Code (Read & Write) scope; or use --dry-run")}
	}
	return serveHost{host: host, token: jo.GitHub.Token, tokenVar: "GITHUB_TOKEN"}
}

// checkServeHosts refuses, before anything is cloned or fetched with the
// token, a --clone URL or DIR's origin on another host than the git host's
// server (GitHub's, GitLab's or the Gitea server's). Each run checks its
// own checkout again (job.Run).
func checkServeHosts(o *serveOptions, host job.Host) error {
	for _, u := range o.Clones {
		if err := host.CheckRemote(u); err != nil {
			return fmt.Errorf("--clone: %w", err)
		}
	}
	if len(o.Clones) > 0 {
		return nil
	}
	origin, err := gitops.OriginURL(o.Repo)
	if err != nil {
		return nil // no origin, no fetch: the run says what is missing
	}
	return host.CheckRemote(origin)
}

// addGitLabGroups adds the projects of the --gitlab-group groups to the
// --clone list, as GitLab lists them to the token (GITLAB_TOKEN) on the
// instance (--forge-url, CI_SERVER_URL, gitlab.com). A group that cannot
// be listed stops serve at start: a fleet silently short of a group's
// projects would look served.
func (o *serveOptions) addGitLabGroups(ctx context.Context, jo *job.Options) error {
	if len(o.GitLabGroups) == 0 {
		return nil
	}
	gl := jo.GitLabSettings()
	c := gitops.Options{Forge: gitops.GitLab, APIURL: gl.ServerURL, Token: gl.Token, Logger: jo.Logger}
	for _, g := range o.GitLabGroups {
		urls, err := gitops.GitLabGroupProjects(ctx, c, g)
		if err != nil {
			return fmt.Errorf("--gitlab-group: %w", err)
		}
		if len(urls) == 0 {
			return fmt.Errorf("--gitlab-group %s: the group has no project that is not archived", g)
		}
		o.Clones = append(o.Clones, urls...)
	}
	o.Clones = slices.Compact(slices.Sorted(slices.Values(o.Clones)))
	return nil
}
