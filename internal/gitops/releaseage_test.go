package gitops_test

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/dashboard"
	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// ageRun is a run with minAge 3d whose plan gets the first sightings the
// dashboard records, as cmd/bot's run does.
func (w *world) ageRun(t *testing.T, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	return w.ageRunCharts(t, nil, edit...)
}

// ageRunCharts is ageRun with HTTP chart repositories, through a fresh
// client (no index cached from an earlier run) that may contact hosts.
func (w *world) ageRunCharts(t *testing.T, localHosts []string, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	s, err := gitops.Open(w.ctx, w.options(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	d, err := s.Dashboard(w.ctx, "imagebot dashboard")
	if err != nil {
		t.Fatal(err)
	}
	seen, since := d.FirstSeen()
	reg := registry.NewClient(registry.WithMirrors(w.mirrors))
	res, err := scan.FS(w.ctx, s.FS(), w.cfg.Included)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(w.ctx, res, plan.Options{
		Registry: reg, Policy: policies(w.cfg), Inspector: inspect.New(reg),
		Gates: func(string, string) gate.Spec { return gate.Spec{MinAge: 3 * day} },
		Now:   w.clock.Now, FirstSeen: seen, SeenSince: since,
		Charts: chartIndexes{chartrepo.New(chartrepo.WithLocalHosts(localHosts))},
	})
	if err != nil {
		t.Fatal(err)
	}
	return w.finish(t, s, p, reg, append([]func(*gitops.RunOptions){func(o *gitops.RunOptions) { o.Dashboard = d }}, edit...)...)
}

const day = 24 * time.Hour

// TestReleaseAgeFirstSeen: a digest pushed after the repository's first
// recorded run, claiming to be ten days old, is held by minAge 3d until
// three days after imagebot first saw it; the dashboard and the PR body
// show both times.
func TestReleaseAgeFirstSeen(t *testing.T) {
	t.Parallel()
	srv := registrytest.NewServer(t)
	w := newWorld(t, withRepo(map[string][]byte{
		"app.yaml": []byte("image: ghcr.io/acme/web:1.0.0\n"),
	}, map[string]string{"ghcr.io": srv.URL() + "/ghcr.io"}))
	now := w.clock.Now()
	srv.Push(t, "ghcr.io/acme/web", "1.0.0", registrytest.Image(t, "1.0.0", now.Add(-30*day), nil))
	srv.Push(t, "ghcr.io/acme/web", "1.1.0", registrytest.Image(t, "1.1.0", now.Add(-20*day), nil))

	// The first recorded run: 1.1.0 was there, and is as old as it says.
	res := w.ageRun(t)
	if len(res.Opened) != 1 {
		t.Fatalf("first run opened %v", res.Opened)
	}
	branch := res.Opened[0]
	if body := w.prs()[branch].Body; !strings.Contains(body, "first seen by imagebot") {
		t.Errorf("the PR body does not show when imagebot first saw the image:\n%s", body)
	}

	// A push that claims to be ten days old.
	w.advance(time.Hour)
	seenAt := w.clock.Now()
	srv.Push(t, "ghcr.io/acme/web", "1.2.0", registrytest.Image(t, "1.2.0", seenAt.Add(-10*day), nil))
	w.ageRun(t)
	if to := w.plan.Updates[0].To; to != "1.1.0" {
		t.Fatalf("a ten-day-old claim pushed now moved the PR to %s", to)
	}
	dash := w.dashboardIssue(t).Body
	passes := seenAt.Add(3 * day).UTC().Format("2006-01-02 15:04 UTC")
	if !strings.Contains(dash, "## Held back by a gate") || !strings.Contains(dash, "1.2.0: held by `minAge`") || !strings.Contains(dash, "passes "+passes) {
		t.Errorf("the dashboard does not hold 1.2.0 until %s:\n%s", passes, dash)
	}

	// A second before three days after first sight: still held. Then due.
	w.advance(3*day - time.Second)
	w.ageRun(t)
	if to := w.plan.Updates[0].To; to != "1.1.0" {
		t.Errorf("moved to %s a second early", to)
	}
	w.advance(time.Second)
	w.ageRun(t)
	if to := w.plan.Updates[0].To; to != "1.2.0" {
		t.Errorf("three days after first sight: to %s, want 1.2.0", to)
	}
	if pr := w.openPRs()[branch]; !strings.Contains(pr.Title, "1.2.0") {
		t.Errorf("the PR was not moved: %q", pr.Title)
	}
}

// TestReleaseAgeChartWithoutDigest is issue 25's item 8: a chart version
// whose index.yaml gives no digest, published after the first recorded
// run and claiming to be ten days old, is first seen by repository, chart
// and version, recorded in the dashboard's marker, and held by minAge 3d
// until three days after imagebot first saw it.
func TestReleaseAgeChartWithoutDigest(t *testing.T) {
	t.Parallel()
	start := time.Now()
	charts := []helmrepotest.Chart{
		{Name: "web", Version: "1.0.0", Created: start.Add(-30 * day), NoDigest: true},
		{Name: "web", Version: "1.1.0", Created: start.Add(-20 * day), NoDigest: true},
	}
	repo := helmrepotest.New(t, slices.Clone(charts))
	u, err := url.Parse(repo.URL)
	if err != nil {
		t.Fatal(err)
	}
	local := []string{u.Host, u.Hostname()}
	w := newWorld(t, withRepo(map[string][]byte{"app.yaml": []byte(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web}
spec:
  source: {repoURL: "` + repo.URL + `", chart: web, targetRevision: 1.0.0}
`)}, nil))
	to := func() string {
		t.Helper()
		if len(w.plan.Updates) != 1 {
			t.Fatalf("updates %+v, problems %+v", w.plan.Updates, w.plan.Problems)
		}
		return w.plan.Updates[0].To
	}

	// The first recorded run: 1.1.0 was there, and is as old as it says.
	if res := w.ageRunCharts(t, local); len(res.Opened) != 1 || to() != "1.1.0" {
		t.Fatalf("first run opened %v, to %s", res.Opened, to())
	}

	// A version without a digest that claims to be ten days old.
	w.advance(time.Hour)
	seenAt := w.clock.Now()
	repo.Set(append(slices.Clone(charts), helmrepotest.Chart{Name: "web", Version: "1.2.0", Created: seenAt.Add(-10 * day), NoDigest: true}))
	w.ageRunCharts(t, local)
	if got := to(); got != "1.1.0" {
		t.Fatalf("a ten-day-old claim published an hour ago moved the PR to %s", got)
	}
	st, ok := dashboard.Decode(w.dashboardIssue(t).Body)
	if !ok || !slices.ContainsFunc(slices.Collect(maps.Values(st.Seen)), func(at time.Time) bool { return at.Equal(seenAt.UTC()) }) {
		t.Errorf("the marker does not record 1.2.0 as first seen at %v: %+v", seenAt.UTC(), st.Seen)
	}

	// A second before three days after first sight: still held. Then due.
	w.advance(3*day - time.Second)
	w.ageRunCharts(t, local)
	if got := to(); got != "1.1.0" {
		t.Errorf("moved to %s a second early", got)
	}
	w.advance(time.Second)
	w.ageRunCharts(t, local)
	if got := to(); got != "1.2.0" {
		t.Errorf("three days after first sight: to %s, want 1.2.0", got)
	}
}

// chartIndexes is the chartrepo client as the plan asks it (internal/job
// adapts it the same way).
type chartIndexes struct{ c *chartrepo.Client }

func (x chartIndexes) Versions(ctx context.Context, repoURL, chart string) (plan.ChartIndex, error) {
	c, err := x.c.Versions(ctx, repoURL, chart)
	if err != nil {
		return plan.ChartIndex{}, err
	}
	out := plan.ChartIndex{Deprecated: c.Deprecated()}
	for _, v := range c.Versions {
		out.Versions = append(out.Versions, plan.ChartVersion{Version: v.Version.Original(), Created: v.Created, AppVersion: v.AppVersion,
			Digest: v.Digest, Home: v.Home, Sources: v.Sources})
	}
	return out, nil
}
