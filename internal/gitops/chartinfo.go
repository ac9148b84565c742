package gitops

import (
	"context"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
)

// ociChart is u's chart completed with what the config blobs of its old
// and new versions say (appVersion, home, sources), for a chart in an OCI
// registry whose update does not say it already; nil when there is
// nothing to add. The blobs are read only here, when a PR body is
// written, through the registry client's caches (once per digest): the
// plan asks nothing of a chart's manifests.
func (r *runner) ociChart(ctx context.Context, u plan.Update) *plan.Chart {
	if !strings.HasPrefix(u.Chart.Repository, "oci://") || u.Chart.AppVersion != "" || u.Repo.RegistryStr() == "" {
		return nil
	}
	to := r.chartInfo(ctx, u, u.To)
	if to == nil {
		return nil
	}
	c := *u.Chart
	c.AppVersion, c.Home, c.Sources = to.AppVersion, to.Home, to.Sources
	if from := r.chartInfo(ctx, u, u.From); from != nil {
		c.FromAppVersion = from.AppVersion
	}
	return &c
}

// chartInfo is what the registry says of version v of u's chart (its
// tag writes '+' as '_'); nil, logged, when it cannot say.
func (r *runner) chartInfo(ctx context.Context, u plan.Update, v string) *chartMeta {
	if v == "" {
		return nil
	}
	info, err := r.o.Details(ctx, u.Repo.Tag(strings.ReplaceAll(v, "+", "_")))
	if err != nil {
		r.log.Warn("chart details unavailable", "chart", u.Image, "version", v, "err", err)
		return nil
	}
	if info.Chart == nil {
		return nil
	}
	return &chartMeta{AppVersion: info.Chart.AppVersion, Home: info.Chart.Home, Sources: info.Chart.Sources}
}

type chartMeta struct {
	AppVersion, Home string
	Sources          []string
}
