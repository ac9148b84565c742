package gitops

import (
	"context"
	"fmt"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/gitea"
	"github.com/imagebot/imagebot/internal/gitops/forge/github"
	"github.com/imagebot/imagebot/internal/gitops/forge/gitlab"
)

// newForge connects to the host o.Forge names ("" is GitHub).
func newForge(ctx context.Context, o Options) (Forge, error) {
	switch o.Forge {
	case "", GitHub:
		return github.New(ctx, github.Options{Config: o.config(), App: o.App})
	case GitLab:
		return gitlab.New(ctx, o.config())
	case Gitea:
		return gitea.New(ctx, o.config())
	}
	return nil, fmt.Errorf("--forge %q: want one of github, gitlab, gitea", o.Forge)
}

// config is what a driver takes of o.
func (o Options) config() forge.Config {
	return forge.Config{URL: o.URL, Repository: o.Repository, APIURL: o.APIURL, Token: o.Token,
		Logger: o.Logger, HTTPClient: o.HTTPClient, MaxWait: o.MaxWait, Clock: o.Clock}
}

// GitLabGroupProjects lists the clone URLs of the projects of a GitLab
// group on o.APIURL (gitlab.GroupProjects).
func GitLabGroupProjects(ctx context.Context, o Options, group string) ([]string, error) {
	return gitlab.GroupProjects(ctx, o.withDefaults().config(), group)
}
