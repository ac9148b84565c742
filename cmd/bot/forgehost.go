package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// serveAccess is the access to the git host serve's repositories are on
// (job.Options.AccessFor), for the first --clone URL, or DIR's origin:
// the token that clones and fetches them, its git user, the server it may
// go to, and what to say without it. serve never asks which host it is.
func serveAccess(o *serveOptions, jo *job.Options) job.Access {
	remote := ""
	if len(o.Clones) > 0 {
		remote = o.Clones[0]
	} else if origin, err := gitops.OriginURL(o.Repo); err == nil {
		remote = origin
	}
	return jo.AccessFor(remote)
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
