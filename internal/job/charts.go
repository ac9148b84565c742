package job

import (
	"context"
	"log/slog"
	"strings"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/fetch"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
)

// chartRepos is the run's one client of HTTP Helm repositories, beside the
// registry client and with its rules: credentials per host from the
// config's registries: entries (the host of a repository URL, as for a
// registry; the registry client's, computed once), the cache of --cache, and the guard that contacts a host on
// this machine or its networks only when the config names it.
func chartRepos(o *Options, cfg *config.Config, creds map[string]registry.Credentials, log *slog.Logger) (*chartrepo.Client, error) {
	store, err := lookupCache(o)
	if err != nil {
		return nil, err
	}
	return chartrepo.New(
		chartrepo.WithCredentials(basicAuth(creds)),
		chartrepo.WithLocalHosts(configHosts(cfg)),
		// A registries key with a mirror maps chart repository URLs too:
		// a bare host all of them on it, a host/path those under it.
		chartrepo.WithMirrors(cfg.ChartMirrors()),
		chartrepo.WithLogger(log),
		chartrepo.WithCache(store),
	), nil
}

// basicAuth are the registry credentials as the chart and git clients
// send them: basic auth, per host.
func basicAuth(creds map[string]registry.Credentials) map[string]fetch.Credentials {
	out := make(map[string]fetch.Credentials, len(creds))
	for host, c := range creds {
		out[host] = fetch.Credentials{Username: c.Username, Password: c.Password}
	}
	return out
}

// lookupCache is the cache of --cache for the chart and git clients, nil
// without one.
func lookupCache(o *Options) (*cache.Cache, error) {
	c := o.Registry.Cache
	if c == nil || c.Dir == "" {
		return nil, nil
	}
	if _, err := c.registryOptions(); err != nil { // opens it once
		return nil, err
	}
	return c.opened, nil
}

// isChart tells a chart's name (REPOSITORY_URL/CHART) from an image's:
// only a chart's has a scheme.
func isChart(name string) bool { return strings.Contains(name, "://") }

// chartSpec is the policy of a chart: versions are semver, by Helm's rule
// (prereleases only from a prerelease), unless the config says how to
// read them.
func chartSpec(s policy.Spec) policy.Spec {
	if s.Versioning == "" && s.Pattern == "" {
		s.Versioning = "semver"
	}
	return s
}

// chartIndexes is the chartrepo client as the plan asks it.
type chartIndexes struct{ c *chartrepo.Client }

var _ plan.ChartRepo = chartIndexes{}

func (x chartIndexes) Versions(ctx context.Context, repoURL, chart string) (plan.ChartIndex, error) {
	c, err := x.c.Versions(ctx, repoURL, chart)
	if err != nil {
		return plan.ChartIndex{}, err
	}
	out := plan.ChartIndex{Deprecated: c.Deprecated(), Versions: make([]plan.ChartVersion, len(c.Versions))}
	for i, v := range c.Versions {
		out.Versions[i] = plan.ChartVersion{Version: v.Version.Original(), Created: v.Created, AppVersion: v.AppVersion,
			Digest: v.Digest, Home: v.Home, Sources: v.Sources}
	}
	return out, nil
}

// Expect passes the charts a plan is about to ask for on (chartrepo keeps
// only those of a big index).
func (x chartIndexes) Expect(repoURL string, charts ...string) { x.c.Expect(repoURL, charts...) }
