package plan_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/plan"
)

var multi = []string{"linux/amd64", "linux/arm64"}

// TestGates runs each gate on a real registry: a candidate that fails is
// passed over for the next best that passes, and the notice says which
// gate held back which candidate.
func TestGates(t *testing.T) {
	minAge3d := gate.Spec{MinAge: 3 * day}
	tests := []struct {
		name     string
		setup    func(t *testing.T, w *gateWorld) // pushes acme/web
		ref      string                           // written as ghcr.io/acme/web:<ref>
		spec     gate.Spec
		updates  []string
		notices  []string
		problems []string
	}{
		{
			name: "too young newest, older passes",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.27.2", ago(30*day))
				w.push(t, "acme/web", "1.27.3", ago(5*day))
				w.push(t, "acme/web", "1.27.4", ago(5*time.Hour))
			},
			ref:     "1.27.2",
			spec:    minAge3d,
			updates: []string{"ghcr.io/acme/web 1.27.2 -> 1.27.3 patch note: held back 1.27.4: 5h old, minAge 3d"},
		},
		{
			name: "every candidate too young",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.27.2", ago(30*day))
				w.push(t, "acme/web", "1.27.3", ago(2*day))
				w.push(t, "acme/web", "1.27.4", ago(5*time.Hour))
			},
			ref:     "1.27.2",
			spec:    minAge3d,
			notices: []string{"a.yaml:8 ghcr.io/acme/web:1.27.2 held: 1.27.4: 5h old, minAge 3d; 1.27.3: 2d old, minAge 3d"},
		},
		{
			name: "reproducible build: unknown age holds",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.0.0", ago(30*day))
				w.push(t, "acme/web", "1.1.0", time.Unix(0, 0))
			},
			ref:     "1.0.0",
			spec:    minAge3d,
			notices: []string{"a.yaml:8 ghcr.io/acme/web:1.0.0 held: 1.1.0: build time unknown (created 1970-01-01, as reproducible builds write), minAge 3d"},
		},
		{
			name: "reproducible build without minAge",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.0.0", ago(30*day))
				w.push(t, "acme/web", "1.1.0", time.Unix(0, 0))
			},
			ref:     "1.0.0",
			spec:    gate.Spec{Platforms: gate.Platforms{Keep: true}},
			updates: []string{"ghcr.io/acme/web 1.0.0 -> 1.1.0 minor"},
		},
		{
			name: "a release drops a platform",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.27.2", ago(30*day), multi...)
				w.push(t, "acme/web", "1.27.3", ago(20*day), multi...)
				w.push(t, "acme/web", "1.27.4", ago(10*day), "linux/amd64", "linux/s390x")
				w.push(t, "acme/web", "1.27.5", ago(9*day), "linux/amd64")
			},
			ref:     "1.27.2",
			spec:    gate.Spec{Platforms: gate.Platforms{Keep: true}, MinAge: 3 * day},
			updates: []string{"ghcr.io/acme/web 1.27.2 -> 1.27.3 patch note: held back 1.27.5: no linux/arm64 (current has linux/amd64, linux/arm64); 1.27.4: no linux/arm64 (current has linux/amd64, linux/arm64)"},
		},
		{
			name: "a platform list",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.0.0", ago(30*day), "linux/amd64")
				w.push(t, "acme/web", "1.1.0", ago(20*day), "linux/amd64", "linux/arm64/v8")
				w.push(t, "acme/web", "1.2.0", ago(10*day), "linux/amd64", "linux/arm/v7")
			},
			ref:     "1.0.0",
			spec:    gate.Spec{Platforms: gate.Platforms{List: []string{"linux/arm64"}}},
			updates: []string{"ghcr.io/acme/web 1.0.0 -> 1.1.0 minor note: held back 1.2.0: no linux/arm64 (policy asks for linux/arm64)"},
		},
		{
			name: "unsigned and wrongly signed candidates",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "2.0.0", ago(30*day))
				w.sign(t, "acme/web", w.push(t, "acme/web", "2.1.0", ago(20*day)), w.key)
				w.sign(t, "acme/web", w.push(t, "acme/web", "2.2.0", ago(10*day)), w.rogue)
				w.push(t, "acme/web", "2.3.0", ago(5*day))
			},
			ref:  "2.0.0",
			spec: gate.Spec{Signature: &gate.Signature{Key: "keys/cosign.pub"}},
			updates: []string{"ghcr.io/acme/web 2.0.0 -> 2.1.0 minor note: held back 2.3.0: not signed (no cosign signature tag or referrer); " +
				"2.2.0: signature not accepted: sig-tag: does not verify with the policy's key (signed with another key?)…"},
		},
		{
			name: "at most five candidates inspected",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "3.0.0", ago(30*day))
				for _, v := range []string{"3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5", "3.0.6", "3.0.7"} {
					w.push(t, "acme/web", v, ago(time.Hour))
				}
			},
			ref:  "3.0.0",
			spec: gate.Spec{MinAge: 12 * time.Hour},
			notices: []string{"a.yaml:8 ghcr.io/acme/web:3.0.0 held: 3.0.7: 1h old, minAge 12h; 3.0.6: 1h old, minAge 12h; " +
				"3.0.5: 1h old, minAge 12h; 3.0.4: 1h old, minAge 12h; 3.0.3: 1h old, minAge 12h; 2 more candidates not inspected (at most 5 per reference)"},
		},
		{
			name: "gates off: the newest, however young",
			setup: func(t *testing.T, w *gateWorld) {
				w.push(t, "acme/web", "1.27.2", ago(30*day))
				w.push(t, "acme/web", "1.27.4", ago(time.Minute))
			},
			ref:     "1.27.2",
			updates: []string{"ghcr.io/acme/web 1.27.2 -> 1.27.4 patch"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newGateWorld(t)
			tc.setup(t, w)
			p := w.build(t, map[string]string{"a.yaml": pod("ghcr.io/acme/web:" + tc.ref)},
				map[string]gate.Spec{"ghcr.io/acme/web": tc.spec})
			check(t, p, tc.updates, tc.notices, tc.problems)
		})
	}
}

// check compares the plan's updates, notices and problems with the lines
// wanted; a wanted line ending in "…" is a prefix (for messages that quote
// a library's error).
func check(t *testing.T, p *plan.Plan, updates, notices, problems []string) {
	t.Helper()
	for _, c := range []struct {
		what      string
		want, got []string
	}{
		{"updates", updates, updateLines(p)},
		{"notices", notices, noticeLines(p)},
		{"problems", problems, problemLines(p)},
	} {
		want := slices.Clone(c.want)
		for i, w := range want {
			if prefix, ok := strings.CutSuffix(w, "…"); ok && i < len(c.got) && strings.HasPrefix(c.got[i], prefix) {
				want[i] = c.got[i]
			}
		}
		if diff := cmp.Diff(want, c.got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
}

// TestGatesRegistryFailure: a registry that cannot be read for one image's
// gates fails that image (a failed lookup, exit 2), never passes or holds
// its candidates on a guess, and the other images are still decided.
func TestGatesRegistryFailure(t *testing.T) {
	w := newGateWorld(t)
	for _, repo := range []string{"acme/web", "acme/api"} {
		w.push(t, repo, "1.0.0", ago(30*day))
		w.push(t, repo, "1.1.0", ago(20*day))
	}
	w.srv.Fail("/ghcr.io/acme/web/manifests/", http.StatusInternalServerError, 0, nil)
	p := w.build(t, map[string]string{"a.yaml": pod("ghcr.io/acme/web:1.0.0", "ghcr.io/acme/api:1.0.0")},
		map[string]gate.Spec{"ghcr.io/acme/web": {MinAge: day}, "ghcr.io/acme/api": {MinAge: day}})
	check(t, p, []string{"ghcr.io/acme/api 1.0.0 -> 1.1.0 minor"}, nil,
		[]string{"a.yaml:8 : check gates of ghcr.io/acme/web:1.0.0: 1.1.0: inspect ghcr.io/acme/web:1.1.0: …"})
	if len(p.Problems) == 1 && !p.Problems[0].Failed {
		t.Error("a registry failure in a gate is not marked Failed")
	}
}
