package plan_test

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
)

// TestFirstSeen: minAge measures from the later of created and first
// sight for a digest that appeared after the first recorded run, so a
// push that claims to be ten days old waits minAge from when it was first
// seen; a digest already there at the first run keeps its created age.
func TestFirstSeen(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "acme/web", "1.0.0", ago(30*day))
	old := w.push(t, "acme/web", "1.1.0", ago(20*day))   // there at the first run
	young := w.push(t, "acme/web", "1.2.0", ago(10*day)) // pushed later, backdated
	files := map[string]string{"a.yaml": pod("ghcr.io/acme/web:1.0.0")}
	spec := map[string]gate.Spec{"ghcr.io/acme/web": {MinAge: 3 * day}}
	since := ago(15 * day)
	build := func(at time.Time, seen map[string]time.Time, since time.Time) *plan.Plan {
		t.Helper()
		reg := w.client()
		p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
			Registry: reg, Policy: policies(t, nil), Inspector: inspect.New(reg),
			Gates: func(img, _ string) gate.Spec { return spec[img] },
			Now:   func() time.Time { return at }, FirstSeen: seen, SeenSince: since,
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Nothing recorded: created alone, and nothing to record.
	p := build(now, nil, time.Time{})
	check(t, p, []string{"ghcr.io/acme/web 1.0.0 -> 1.2.0 minor"}, nil, nil)
	if p.Seen != nil {
		t.Errorf("Seen = %v without a record", p.Seen)
	}

	// The first recorded run: created alone, every candidate recorded now.
	p = build(now, map[string]time.Time{}, time.Time{})
	check(t, p, []string{"ghcr.io/acme/web 1.0.0 -> 1.2.0 minor"}, nil, nil)
	if got := p.Seen[young]; !got.Equal(now) {
		t.Errorf("Seen[young] = %v, want %v", got, now)
	}

	// Later: 1.2.0 was first seen a day ago, after the first run.
	seen := map[string]time.Time{old: since, young: ago(day)}
	p = build(now, seen, since)
	check(t, p, []string{"ghcr.io/acme/web 1.0.0 -> 1.1.0 minor note: held back 1.2.0: first seen 1d ago (created " +
		ago(10*day).UTC().Format("2006-01-02") + "), minAge 3d"}, nil, nil)
	if len(p.Held) != 1 || p.Held[0].Tag != "1.2.0" || !p.Held[0].Passes.Equal(ago(day).Add(3*day)) || !p.Held[0].Seen.Equal(ago(day)) {
		t.Errorf("Held = %+v", p.Held)
	}
	if ev := p.Updates[0].Evidence.Age; ev.FirstSeen == nil || !ev.FirstSeen.Equal(since) {
		t.Errorf("evidence = %+v, want first seen %v", ev, since)
	}

	// A second before three days after first sight: held; at it: passes.
	passes := ago(day).Add(3 * day)
	check(t, build(passes.Add(-time.Second), seen, since), []string{"ghcr.io/acme/web 1.0.0 -> 1.1.0 minor note: held back 1.2.0: first seen 2d23h ago (created " +
		ago(10*day).UTC().Format("2006-01-02") + "), minAge 3d"}, nil, nil)
	check(t, build(passes, seen, since), []string{"ghcr.io/acme/web 1.0.0 -> 1.2.0 minor"}, nil, nil)

	// A digest never recorded, after the first run, is first seen now.
	p = build(now, map[string]time.Time{old: since}, since)
	if got := p.Updates[0].To; got != "1.1.0" || !p.Seen[young].Equal(now) {
		t.Errorf("unrecorded young digest: to %s, seen %v", got, p.Seen[young])
	}
}
