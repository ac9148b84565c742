package gitops

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestChartBody: a chart update's PR says what the chart's index says:
// appVersion old and new, home and sources as https links only, every
// value from the index quoted.
func TestChartBody(t *testing.T) {
	u := plan.Update{
		Image: "https://charts.example.com/web", From: "1.2.3", To: "1.3.0", Type: "minor", Kind: plan.KindChart,
		Chart: &plan.Chart{Repository: "https://charts.example.com", Name: "web", FromAppVersion: "1.25.0", AppVersion: "1.26.0@here",
			Home: "https://web.example.com", Sources: []string{"https://github.com/acme/web", "javascript:alert(1)", "http://plain.example.com"}},
	}
	g := groups(&plan.Plan{Updates: []plan.Update{u}}, "imagebot/")[0]
	b := body(g)
	want := "Chart `web` `1.3.0`: appVersion `1.25.0` → `1.26.0@here` · home: https://web.example.com · sources: https://github.com/acme/web"
	if !strings.Contains(b, want) {
		t.Errorf("body lacks %q:\n%s", want, b)
	}
	for _, bad := range []string{"javascript:", "http://plain"} {
		if strings.Contains(b, bad) {
			t.Errorf("body holds %q:\n%s", bad, b)
		}
	}
	if g.Branch != "imagebot/chart-charts.example.com-web" {
		t.Errorf("branch %q", g.Branch)
	}
}

// TestOCIChartBody: an OCI chart's PR says what the config blobs of its
// old and new versions say (Helm's metadata), read through the registry
// client when the body is written, once per digest; the plan's update is
// left as it was.
func TestOCIChartBody(t *testing.T) {
	srv := registrytest.NewServer(t)
	for _, c := range []helmrepotest.Chart{
		{Name: "podinfo", Version: "6.5.0", AppVersion: "6.5.0"},
		{Name: "podinfo", Version: "6.6.0+build.1", AppVersion: "6.6.0", Home: "https://podinfo.example.com", Sources: []string{"https://github.com/stefanprodan/podinfo"}},
	} {
		srv.Push(t, "stefanprodan/charts/podinfo", strings.ReplaceAll(c.Version, "+", "_"), registrytest.Chart(t, c, time.Now()))
	}
	// Through an http:// mirror: no https attempt, so the counts are the
	// server's.
	reg := registry.NewClient(registry.WithKeychain(authn.NewMultiKeychain()), registry.WithMirrors(map[string]string{"ghcr.io": srv.URL()}))
	repo, err := name.NewRepository("ghcr.io/stefanprodan/charts/podinfo")
	if err != nil {
		t.Fatal(err)
	}
	u := plan.Update{Image: "oci://" + repo.String(), Repo: repo, From: "6.5.0", To: "6.6.0+build.1", Type: "minor", Kind: plan.KindChart,
		Chart: &plan.Chart{Repository: "oci://ghcr.io/stefanprodan/charts", Name: "podinfo"}}
	r := &runner{o: RunOptions{Details: reg.Info}, log: slog.New(slog.DiscardHandler)}
	g := groups(&plan.Plan{Updates: []plan.Update{u}}, "imagebot/")[0]
	for range 2 {
		b := body(r.details(t.Context(), g))
		want := "Chart `podinfo` `6.6.0+build.1`: appVersion `6.5.0` → `6.6.0` · home: https://podinfo.example.com · sources: https://github.com/stefanprodan/podinfo"
		if !strings.Contains(b, want) {
			t.Errorf("body lacks %q:\n%s", want, b)
		}
	}
	if gets := srv.Count(http.MethodGet, "/manifests/") + srv.Count(http.MethodGet, "/blobs/"); gets != 4 {
		t.Errorf("%d GETs, want 4: two manifests and their configs, once", gets)
	}
	if g.Updates[0].Chart.AppVersion != "" {
		t.Errorf("the plan's update was changed: %+v", g.Updates[0].Chart)
	}
}
