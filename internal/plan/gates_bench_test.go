package plan_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
)

// BenchmarkGates times a plan of 200 images under every gate but
// digestSettle (minAge 3d, platforms: keep, a key signature): each
// image's newest release is too young, so two candidates are inspected and
// the second is verified. It reports the requests a plan sends by kind,
// the wall time per plan, and what the same plan costs without gates.
//
//	go test ./internal/plan -run '^$' -bench Gates -benchtime 3x
func BenchmarkGates(b *testing.B) {
	const images = 200
	w := newGateWorld(b)
	specs := map[string]gate.Spec{}
	var refs []string
	for i := range images {
		repo := fmt.Sprintf("acme/svc%03d", i)
		w.push(b, repo, "1.0.0", ago(30*day), multi...)
		w.sign(b, repo, w.push(b, repo, "1.1.0", ago(10*day), multi...), w.key)
		w.push(b, repo, "1.2.0", ago(time.Hour), multi...)
		specs["ghcr.io/"+repo] = gate.Spec{MinAge: 3 * day, Platforms: gate.Platforms{Keep: true},
			Signature: &gate.Signature{Key: "keys/cosign.pub"}}
		refs = append(refs, "ghcr.io/"+repo+":1.0.0")
	}
	res := scanFiles(b, map[string]string{"a.yaml": pod(refs...)})
	for _, lat := range []time.Duration{0, 20 * time.Millisecond} {
		for _, gated := range []bool{false, true} {
			b.Run(fmt.Sprintf("latency=%s/gates=%v", lat, gated), func(b *testing.B) {
				w.srv.SetLatency(lat)
				defer w.srv.SetLatency(0)
				var p *plan.Plan
				var reqs, gets, blobs, refsReqs, heads int
				start := time.Now()
				for b.Loop() {
					reg := w.client()
					opts := plan.Options{Registry: reg, Policy: policies(b, nil), Inspector: inspect.New(reg, inspect.WithKeys(w.keys)),
						Now: func() time.Time { return now }}
					if gated {
						opts.Gates = func(img, _ string) gate.Spec { return specs[img] }
					}
					var err error
					if p, err = plan.Build(b.Context(), res, opts); err != nil {
						b.Fatal(err)
					}
					st := reg.Stats()[0]
					reqs, gets, blobs, refsReqs, heads = st.Requests, st.ManifestGet, st.Blob, st.Referrers, st.ManifestHead
				}
				if len(p.Updates) != images || len(p.Problems) != 0 {
					b.Fatalf("%d updates, problems %v", len(p.Updates), p.Problems)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "wall-ms")
				b.ReportMetric(float64(reqs), "requests")
				b.ReportMetric(float64(gets), "manifest-gets")
				b.ReportMetric(float64(blobs), "blobs")
				b.ReportMetric(float64(refsReqs), "referrers")
				b.ReportMetric(float64(heads), "heads")
			})
		}
	}
}
