package job

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitsource"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// gitSources is the run's one client of git repositories (the tags of
// versions deployed by git tag), beside the registry and chart clients and
// with their rules: credentials per host from the config's registries:
// entries (a git host is named as a registry is: "github.com",
// "git.example.com:8443"), the cache of --cache, and the guard that
// contacts a host on this machine or its networks only when the config
// names it.
func gitSources(o *Options, cfg *config.Config, creds map[string]registry.Credentials, log *slog.Logger) (*gitsource.Client, error) {
	store, err := lookupCache(o)
	if err != nil {
		return nil, err
	}
	concurrency := map[string]int{}
	for host, r := range cfg.Registries {
		if r.Concurrency > 0 {
			concurrency[host] = r.Concurrency
		}
	}
	return gitsource.New(
		gitsource.WithCredentials(basicAuth(creds)),
		gitsource.WithHostConcurrency(concurrency),
		gitsource.WithLocalHosts(slices.Collect(maps.Keys(cfg.Registries))),
		gitsource.WithLogger(log),
		gitsource.WithCache(store),
	), nil
}

// gitTags is the gitsource client as the plan asks it.
type gitTags struct{ c *gitsource.Client }

var _ plan.GitRepo = gitTags{}

func (g gitTags) List(ctx context.Context, repoURL string) (plan.GitListing, error) {
	l, err := g.c.List(ctx, repoURL)
	if err != nil {
		return plan.GitListing{}, err
	}
	out := plan.GitListing{Branches: l.Branches, Tags: make([]plan.GitTag, len(l.Tags))}
	for i, t := range l.Tags {
		out.Tags[i] = plan.GitTag{Name: t.Name, Commit: t.Commit}
	}
	return out, nil
}

func (g gitTags) Serves(ctx context.Context, assetURL string) (bool, error) {
	return g.c.Serves(ctx, assetURL)
}

// logGitCost logs what the git lookups cost, per host.
func logGitCost(log *slog.Logger, c *gitsource.Client) {
	for _, s := range c.Stats() {
		log.Info("git requests", "host", s.Host, "requests", s.Requests, "errors", s.Errors, "fromCache", s.FromCache)
	}
}

// versionLists lists chart versions and git tags, for a rollback of
// either (plan.VersionsOf).
type versionLists struct {
	chartIndexes
	gitTags
}

var _ interface {
	plan.ChartRepo
	plan.GitRepo
} = versionLists{}
