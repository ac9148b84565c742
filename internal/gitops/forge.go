package gitops

import (
	"context"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// newForge connects to the host o.Forge names ("" is GitHub), through
// its driver (forge.Open).
func newForge(ctx context.Context, o Options) (Forge, error) {
	return forge.Open(ctx, o.Forge, o.config())
}

// config is what a driver takes of o.
func (o Options) config() forge.Config {
	return forge.Config{URL: o.URL, Repository: o.Repository, APIURL: o.APIURL, Token: o.Token, User: o.User,
		Logger: o.Logger, HTTPClient: o.HTTPClient, MaxWait: o.MaxWait, Clock: o.Clock, App: o.App}
}

// GitLabGroupProjects lists the clone URLs of the projects of a GitLab
// group on o.APIURL (the GitLab driver's forge.GroupLister).
func GitLabGroupProjects(ctx context.Context, o Options, group string) ([]string, error) {
	return forge.GroupProjects(ctx, GitLab, o.withDefaults().config(), group)
}
