package plan_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// Issue 21's chart workload: 200 HelmReleases over 20 HTTP repositories
// whose indexes hold 5,000 versions each (50 charts of 100 versions,
// about 2.3 MiB of index.yaml as Helm writes it), and 50 HelmReleases of
// OCI charts (3 versions each, pushed as `helm push` pushes them).
const (
	chartRepos      = 20
	chartsPerRepo   = 50
	versionsOfChart = 100
	httpReleases    = 200
	ociCharts       = 50
)

// chartWorkload is the repositories and the tree that uses them.
type chartWorkload struct {
	servers []*helmrepotest.Server
	reg     *testRegistry
	files   map[string]string
}

func newChartWorkload(b *testing.B) *chartWorkload {
	b.Helper()
	w := &chartWorkload{files: map[string]string{}, reg: newRegistry(b, nil)}
	var sources, releases strings.Builder
	for r := range chartRepos {
		var cs []helmrepotest.Chart
		for ch := range chartsPerRepo {
			for v := range versionsOfChart {
				cs = append(cs, helmrepotest.Chart{
					Name: fmt.Sprintf("chart%d", ch), Version: fmt.Sprintf("%d.%d.%d", v/10, v%10, r),
					AppVersion: fmt.Sprintf("v%d.0", v), Description: "A chart for benchmarks, as long as most descriptions are.",
					Home: "https://example.com/home", Sources: []string{"https://github.com/example/charts"},
				})
			}
		}
		srv := helmrepotest.New(b, cs)
		w.servers = append(w.servers, srv)
		fmt.Fprintf(&sources, "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: repo%d, namespace: flux-system}\nspec: {url: %s}\n", r, srv.URL)
	}
	fmt.Fprintf(&sources, "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: oci, namespace: flux-system}\nspec: {type: oci, url: oci://ghcr.io/acme/charts}\n")
	for i := range httpReleases {
		// 10 charts of each repository, at an old version.
		fmt.Fprintf(&releases, "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: http%d, namespace: flux-system}\nspec:\n  chart:\n    spec:\n      chart: chart%d\n      version: 1.0.%d\n      sourceRef: {kind: HelmRepository, name: repo%d}\n",
			i, i/chartRepos, i%chartRepos, i%chartRepos)
	}
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range ociCharts {
		for v := range 3 {
			c := helmrepotest.Chart{Name: fmt.Sprintf("oci%d", i), Version: fmt.Sprintf("1.%d.0", v), AppVersion: "1.0"}
			w.reg.Push(b, "ghcr.io/acme/charts/"+c.Name, c.Version, registrytest.Chart(b, c, created.AddDate(0, 0, v)))
		}
		fmt.Fprintf(&releases, "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: oci%d, namespace: flux-system}\nspec:\n  chart:\n    spec:\n      chart: oci%d\n      version: 1.0.0\n      sourceRef: {kind: HelmRepository, name: oci}\n", i, i)
	}
	w.files["flux/sources.yaml"] = sources.String()
	w.files["flux/releases.yaml"] = releases.String()
	return w
}

// BenchmarkPlanCharts200x20 times `plan` (scan and plan.Build, with a
// fresh registry client and chart repository client, as each run has) on
// issue 21's chart workload, every request to either kind of repository
// answered after 20 ms. Each index must be fetched and parsed once and
// each OCI chart listed once; every chart is an update. It reports the
// requests, the wall time, and three memory figures: the RSS this process
// holds once the servers are up (servers-RSS-MiB), its peak RSS while
// planning, servers included (peak-RSS-MiB), and the peak RSS of one plan
// run in a process of its own (plan-process-RSS-MiB, what `imagebot plan`
// needs), which must stay within 150 MiB.
//
//	make bench   # or: go test ./internal/plan -run '^$' -bench PlanCharts200x20 -benchtime 3x
func BenchmarkPlanCharts200x20(b *testing.B) {
	w := newChartWorkload(b)
	for _, s := range w.servers {
		s.SetLatency(20 * time.Millisecond)
	}
	w.reg.SetLatency(20 * time.Millisecond)
	defer w.reg.SetLatency(0)
	// Building the 20 indexes (Helm's YAML, in memory) peaks far above
	// what the servers then hold: give that memory back and start the
	// peak (VmHWM) afresh, so that it measures the plans.
	debug.FreeOSMemory()
	base := resetPeakRSS(b)
	var requests, tags int
	start := time.Now()
	for b.Loop() {
		res := scanFiles(b, w.files)
		charts := chartrepo.New()
		reg := w.reg.client()
		p, err := plan.Build(b.Context(), res, plan.Options{Registry: reg, Charts: indexes{charts}, Policy: semverForCharts(b, nil)})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Updates) != httpReleases+ociCharts || len(p.Problems) != 0 {
			b.Fatalf("%d updates, %d problems (%v): want every chart updated", len(p.Updates), len(p.Problems), p.Problems)
		}
		requests = 0
		stats := charts.Stats()
		if len(stats) != chartRepos {
			b.Fatalf("%d repository hosts, want %d", len(stats), chartRepos)
		}
		for _, s := range stats {
			if s.Indexes != 1 || s.Requests != 1 {
				b.Fatalf("%+v: want one index request per repository", s)
			}
			requests += s.Requests
		}
		rs := reg.Stats()
		tags = 0
		for _, s := range rs {
			tags += s.Tags
			requests += s.Requests
		}
		if tags != ociCharts {
			b.Fatalf("%d tag listings, want one per OCI chart (%d)", tags, ociCharts)
		}
	}
	wall := time.Since(start)
	alone := w.planAlone(b)
	if alone > 150 {
		b.Errorf("the plan's own process peaked at %.1f MiB RSS, over the 150 MiB allowed", alone)
	}
	b.ReportMetric(alone, "plan-process-RSS-MiB")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms")
	b.ReportMetric(float64(requests), "requests")
	b.ReportMetric(float64(tags), "tags")
	b.ReportMetric(base, "servers-RSS-MiB")
	b.ReportMetric(procStatusMiB("VmHWM:"), "peak-RSS-MiB")
}

// resetPeakRSS starts the process's peak RSS (VmHWM) afresh from its
// current RSS, which it returns in MiB (Linux: /proc/self/clear_refs).
func resetPeakRSS(b *testing.B) float64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak RSS: %v", err)
	}
	return procStatusMiB("VmRSS:")
}

// procStatusMiB is a /proc/self/status figure ("VmHWM:") in MiB.
func procStatusMiB(key string) float64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == key {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// planAlone runs one plan of the workload in a process of its own (this
// test binary, running TestChartWorkloadProcess) and returns that
// process's peak RSS in MiB: what `imagebot plan` holds, without the
// servers this process runs.
func (w *chartWorkload) planAlone(b *testing.B) float64 {
	dir := b.TempDir()
	for name, content := range w.files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cmd := exec.CommandContext(b.Context(), os.Args[0], "-test.run", "^TestChartWorkloadProcess$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "IMAGEBOT_CHART_WORKLOAD="+dir, "IMAGEBOT_CHART_REGISTRY="+w.reg.URL())
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("the plan's own process: %v\n%s", err, out)
	}
	// Its own VmHWM: a child's rusage counts the RSS its parent had when
	// it forked (Linux keeps maxrss across exec).
	_, after, ok := strings.Cut(string(out), "peak-RSS-MiB=")
	if !ok {
		b.Fatalf("the plan's own process said no peak RSS:\n%s", out)
	}
	mib, err := strconv.ParseFloat(strings.Fields(after)[0], 64)
	if err != nil {
		b.Fatal(err)
	}
	return mib
}

// TestChartWorkloadProcess is the plan BenchmarkPlanCharts200x20 runs in
// a process of its own (planAlone); it does nothing in a test run.
func TestChartWorkloadProcess(t *testing.T) {
	dir := os.Getenv("IMAGEBOT_CHART_WORKLOAD")
	if dir == "" {
		t.Skip("run by BenchmarkPlanCharts200x20")
	}
	res, err := scan.Dir(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := (&testRegistry{}).clientAt(os.Getenv("IMAGEBOT_CHART_REGISTRY"))
	charts := chartrepo.New()
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: reg, Charts: indexes{charts}, Policy: semverForCharts(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != httpReleases+ociCharts || len(p.Problems) != 0 {
		t.Fatalf("%d updates, %d problems: want every chart updated", len(p.Updates), len(p.Problems))
	}
	for _, s := range charts.Stats() {
		if s.Requests != 1 {
			t.Fatalf("%+v: want one index request per repository", s)
		}
	}
	fmt.Printf("peak-RSS-MiB=%.1f\n", procStatusMiB("VmHWM:"))
}
