package serve

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/job"
)

// TestDriftMetric: imagebot_drift_references{kind} is the last finished
// run's count over every repository, each kind present from the start.
func TestDriftMetric(t *testing.T) {
	m := newMetrics()
	if got := driftGauges(t, m); len(got) != 5 || got["gone"] != 0 {
		t.Fatalf("before any run: %v, want the five kinds at 0", got)
	}
	m.repoDone(job.Summary{Drift: job.DriftCount{Mixed: 1, Stale: 2}})
	m.repoDone(job.Summary{Drift: job.DriftCount{Stale: 1, NotRunning: 4}})
	m.runDone(Partial, 0, time.Second, time.Now())
	got := driftGauges(t, m)
	if got["mixed"] != 1 || got["stale"] != 3 || got["not-running"] != 4 || got["gone"] != 0 {
		t.Errorf("after the run: %v", got)
	}
	m.repoDone(job.Summary{})
	m.runDone(OK, 0, time.Second, time.Now())
	if got := driftGauges(t, m); got["stale"] != 0 {
		t.Errorf("after a run without drift: %v", got)
	}
}

func driftGauges(t *testing.T, m *metrics) map[string]float64 {
	t.Helper()
	mfs, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "imagebot_drift_references" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			out[mt.GetLabel()[0].GetValue()] = mt.GetGauge().GetValue()
		}
	}
	return out
}
