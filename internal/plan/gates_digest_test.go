package plan_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/gate"
)

// TestDigestSettle: a tag re-pushed one architecture at a time (as the
// official images are) gets one digest update, once its newest platform
// image is digestSettle old, not one per push.
func TestDigestSettle(t *testing.T) {
	settle := gate.Spec{DigestSettle: 6 * time.Hour}
	tests := []struct {
		name     string
		arm64    time.Duration // age of the re-pushed arm64 image
		pinned   string        // "" for the old digest
		spec     gate.Spec
		updates  []string
		notices  []string
		problems []string
		settled  *gate.AgeEvidence
	}{
		{
			name:    "still being pushed",
			arm64:   2 * time.Hour,
			spec:    settle,
			notices: []string{"a.yaml:8 ghcr.io/acme/web:2.0.0 held: 2.0.0 (new digest NEW): 2h old, digestSettle 6h"},
		},
		{
			name:    "settled",
			arm64:   7 * time.Hour,
			spec:    settle,
			updates: []string{"ghcr.io/acme/web 2.0.0 -> 2.0.0 digest"},
			settled: &gate.AgeEvidence{Created: ago(7 * time.Hour), Limit: "6h"},
		},
		{
			name:    "minAge applies to a refreshed digest too",
			arm64:   7 * time.Hour,
			spec:    gate.Spec{MinAge: 12 * time.Hour},
			notices: []string{"a.yaml:8 ghcr.io/acme/web:2.0.0 held: 2.0.0 (new digest NEW): 8h old, minAge 12h"},
		},
		{
			name:     "held, and the pinned digest is gone",
			arm64:    time.Hour,
			pinned:   zeros,
			spec:     settle,
			notices:  []string{"a.yaml:8 ghcr.io/acme/web:2.0.0 held: 2.0.0 (new digest NEW): 1h old, digestSettle 6h"},
			problems: []string{"a.yaml:8 dangling: ghcr.io/acme/web:2.0.0@000000000000 is gone from the registry (no manifest with that digest): nodes without the image cached can no longer start this workload: restore the tag or move to another"},
		},
		{
			// The update replaces it, yet until it is merged the
			// workload cannot start where the image is not cached.
			name:     "a gone digest that the update replaces is still dangling",
			arm64:    7 * time.Hour,
			pinned:   zeros,
			spec:     settle,
			updates:  []string{"ghcr.io/acme/web 2.0.0 -> 2.0.0 digest"},
			problems: []string{"a.yaml:8 dangling: ghcr.io/acme/web:2.0.0@000000000000 is gone from the registry (no manifest with that digest): nodes without the image cached can no longer start this workload: restore the tag or move to another (this plan moves it to 2.0.0@NEW)"},
			settled:  &gate.AgeEvidence{Created: ago(7 * time.Hour), Limit: "6h"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newGateWorld(t)
			old := w.push(t, "acme/web", "2.0.0", ago(30*day), multi...)
			// The re-push, amd64 rebuilt first and arm64 later: the tag
			// named an amd64-only index in between.
			w.push(t, "acme/web", "2.0.0", ago(8*time.Hour), "linux/amd64")
			nu := w.pushIndex(t, "acme/web", "2.0.0", map[string]time.Time{"linux/amd64": ago(8 * time.Hour), "linux/arm64": ago(tc.arm64)})
			pinned := old
			if tc.pinned != "" {
				pinned = tc.pinned
			}
			p := w.build(t, map[string]string{"a.yaml": pod("ghcr.io/acme/web:2.0.0@" + pinned)},
				map[string]gate.Spec{"ghcr.io/acme/web": tc.spec})
			for i := range tc.notices {
				tc.notices[i] = replaceNew(tc.notices[i], nu)
			}
			for i := range tc.problems {
				tc.problems[i] = replaceNew(tc.problems[i], nu)
			}
			check(t, p, tc.updates, tc.notices, tc.problems)
			if tc.settled != nil {
				if len(p.Updates) != 1 || p.Updates[0].Digest != nu || p.Updates[0].Evidence == nil {
					t.Fatalf("updates %+v, want one to %s with evidence", p.Updates, nu)
				}
				if diff := cmp.Diff(tc.settled, p.Updates[0].Evidence.Settled); diff != "" {
					t.Errorf("settle evidence (-want +got):\n%s", diff)
				}
			}
		})
	}
}
