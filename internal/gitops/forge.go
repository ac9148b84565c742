package gitops

import (
	"context"
	"fmt"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/gitea"
)

// newForge connects to the host o.Forge names ("" is GitHub).
func newForge(ctx context.Context, o Options) (Forge, error) {
	switch o.Forge {
	case "", GitHub:
		return newGitHub(ctx, o)
	case GitLab:
		return newGitLab(o)
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
