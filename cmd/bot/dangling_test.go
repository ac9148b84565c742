package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestDanglingAnnotations: on Actions a dangling reference is an error
// annotation on its line, other problems stay warnings.
func TestDanglingAnnotations(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	p := &plan.Plan{Problems: []plan.Problem{
		{File: "apps/web.yaml", Line: 12, Kind: plan.KindDangling, Failed: true,
			Message: "ghcr.io/acme/web:1.0.0 is gone from the registry (not in its tag list): nodes without the image cached can no longer start this workload: restore the tag or move to another"},
		{File: "odd/broken.yaml", Line: 3, Message: "yaml: bad indentation"},
	}}
	var w bytes.Buffer
	annotate(&w, p, nil)
	want := "::error file=apps/web.yaml,line=12,title=Dangling image reference::ghcr.io/acme/web:1.0.0 is gone from the registry (not in its tag list): nodes without the image cached can no longer start this workload: restore the tag or move to another\n" +
		"::warning file=odd/broken.yaml,line=3::yaml: bad indentation\n"
	if w.String() != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", w.String(), want)
	}
	if n := dangling(p); n != 1 {
		t.Errorf("dangling = %d, want 1", n)
	}
}

// TestDanglingMetric: the gauge is the last finished run's count over
// every repository, replaced (not added to) by the next run.
func TestDanglingMetric(t *testing.T) {
	m := newServeMetrics()
	m.repoDone(runSummary{Dangling: 2})
	m.repoDone(runSummary{Dangling: 1})
	if got := gauge(t, m); got != 0 {
		t.Errorf("gauge during the run = %v, want the last finished run's (0)", got)
	}
	m.runDone(exitPartial, 0, time.Second, time.Now())
	if got := gauge(t, m); got != 3 {
		t.Errorf("gauge after the run = %v, want 3", got)
	}
	m.repoDone(runSummary{})
	m.runDone(exitOK, 0, time.Second, time.Now())
	if got := gauge(t, m); got != 0 {
		t.Errorf("gauge after a clean run = %v, want 0", got)
	}
}

// gauge gathers imagebot_dangling_references from the metrics registry,
// as a scrape would.
func gauge(t *testing.T, m *serveMetrics) float64 {
	t.Helper()
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "imagebot_dangling_references" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatal("imagebot_dangling_references is not registered")
	return 0
}
