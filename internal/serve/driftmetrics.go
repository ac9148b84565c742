package serve

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/job"
)

// driftGauge is imagebot_drift_references{kind}: the drift findings of
// the last finished run over every served repository (those with
// clusters: in their config), by kind. Like imagebot_dangling_references
// it moves once per run, not repository by repository.
type driftGauge struct {
	vec *prometheus.GaugeVec
	now map[drift.Kind]int
}

func newDriftGauge() *driftGauge {
	g := &driftGauge{
		vec: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "imagebot_drift_references",
			Help: "Drift between the clusters, the repository and the registry in the last finished run, by kind: mixed, stale, gone, undeclared, not-running (docs/drift.md).",
		}, []string{"kind"}),
		now: map[drift.Kind]int{},
	}
	// Every kind exists from the start, at 0: an alert on
	// imagebot_drift_references{kind="gone"} > 0 sees a 0 before the first.
	for _, k := range drift.Kinds {
		g.vec.WithLabelValues(string(k))
	}
	return g
}

func (g *driftGauge) repoDone(s job.Summary) {
	for k, n := range s.Drift.ByKind() {
		g.now[k] += n
	}
}

func (g *driftGauge) runDone() {
	for _, k := range drift.Kinds {
		g.vec.WithLabelValues(string(k)).Set(float64(g.now[k]))
	}
	clear(g.now)
}
