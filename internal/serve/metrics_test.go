package serve

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/job"
)

// TestDanglingMetric: the gauge is the last finished run's count over
// every repository, replaced (not added to) by the next run.
func TestDanglingMetric(t *testing.T) {
	m := newMetrics()
	m.repoDone(job.Summary{Dangling: 2})
	m.repoDone(job.Summary{Dangling: 1})
	if got := gauge(t, m); got != 0 {
		t.Errorf("gauge during the run = %v, want the last finished run's (0)", got)
	}
	m.runDone(Partial, 0, time.Second, time.Now())
	if got := gauge(t, m); got != 3 {
		t.Errorf("gauge after the run = %v, want 3", got)
	}
	m.repoDone(job.Summary{})
	m.runDone(OK, 0, time.Second, time.Now())
	if got := gauge(t, m); got != 0 {
		t.Errorf("gauge after a clean run = %v, want 0", got)
	}
}

// gauge gathers imagebot_dangling_references from the metrics registry,
// as a scrape would.
func gauge(t *testing.T, m *metrics) float64 {
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
