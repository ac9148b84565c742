package plan_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry/cache"
)

// cacheBuilds is plan.BuildTimes over a real --cache directory.
type cacheBuilds struct{ c *cache.Cache }

func (b cacheBuilds) Builds(r name.Repository) map[string]time.Time {
	return b.c.Builds(r.RegistryStr(), r.RepositoryStr())
}
func (b cacheBuilds) PutBuilds(r name.Repository, m map[string]time.Time) {
	if err := b.c.PutBuilds(r.RegistryStr(), r.RepositoryStr(), m); err != nil {
		panic(err)
	}
}

// buildWorld: CI pushed main-<sha> tags whose names say nothing of their
// order: main-c3 first, then main-a1 (current), main-f6, main-b2.
func buildWorld(t *testing.T) (*gateWorld, plan.BuildTimes) {
	w := newGateWorld(t)
	w.push(t, "acme/api", "main-c3c3c3c", ago(9*day))
	w.push(t, "acme/api", "main-a1a1a1a", ago(8*day))
	w.push(t, "acme/api", "main-f6f6f6f", ago(3*day))
	w.push(t, "acme/api", "main-b2b2b2b", ago(2*day))
	w.push(t, "acme/api", "latest", ago(day)) // floats: never a candidate
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w, cacheBuilds{c}
}

func planBuilds(t *testing.T, w *gateWorld, spec policy.Spec, gates gate.Spec, o plan.Options) *plan.Plan {
	t.Helper()
	reg := w.client()
	o.Registry, o.Inspector = reg, inspect.New(reg)
	o.Policy = policies(t, map[string]policy.Spec{"ghcr.io/acme/api": spec})
	o.Gates = func(string, string) gate.Spec { return gates }
	o.Now = func() time.Time { return now }
	p, err := plan.Build(t.Context(), scanFiles(t, map[string]string{"a.yaml": pod("ghcr.io/acme/api:main-a1a1a1a")}), o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOrderCreated: the newest build by created time is proposed, as a
// build update; reading the times costs one manifest and one config per
// tag, and a rerun with the cache costs the listing alone.
func TestOrderCreated(t *testing.T) {
	w, kept := buildWorld(t)
	spec := policy.Spec{Order: policy.OrderCreated, Pattern: `^main-[0-9a-f]{7}$`}
	p := planBuilds(t, w, spec, gate.Spec{}, plan.Options{Builds: kept})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-b2b2b2b build"}, nil, nil)
	o := p.Updates[0].Order
	if o == nil || o.By != "created" || o.Requests != 8 || o.Undated != 0 {
		t.Errorf("order = %+v, want created, 8 requests (4 tags)", o)
	}
	if got := w.srv.Count("GET", "/manifests/") + w.srv.Count("GET", "/blobs/"); got != 8 {
		t.Errorf("registry saw %d manifest and blob GETs, want 8", got)
	}

	// A rerun with the cache and no new tag: one listing, nothing else.
	w.srv.Reset()
	p = planBuilds(t, w, spec, gate.Spec{}, plan.Options{Builds: kept})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-b2b2b2b build"}, nil, nil)
	if o := p.Updates[0].Order; o.Requests != 0 {
		t.Errorf("rerun order = %+v, want 0 requests", o)
	}
	// The client's ping (GET /v2/) and the listing, nothing else.
	if n, tags := len(w.srv.Requests()), w.srv.Count("GET", "/tags/list"); n != 2 || tags != 1 {
		t.Errorf("rerun: %d requests, %d listings; want the ping and one listing: %v", n, tags, w.srv.Requests())
	}

	// A new build: only it is read.
	w.push(t, "acme/api", "main-0d0d0d0", ago(time.Hour))
	w.srv.Reset()
	p = planBuilds(t, w, spec, gate.Spec{}, plan.Options{Builds: kept})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-0d0d0d0 build"}, nil, nil)
	if o := p.Updates[0].Order; o.Requests != 2 {
		t.Errorf("new build: order = %+v, want 2 requests", o)
	}
}

// TestOrderNeverBackwards: a build older than the current one is never
// proposed, and a current tag gone from the listing is reported, not
// replaced by a guess.
func TestOrderNeverBackwards(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "acme/api", "main-a1a1a1a", ago(8*day))
	w.push(t, "acme/api", "main-c3c3c3c", ago(9*day))
	spec := policy.Spec{Order: policy.OrderCreated}
	p := planBuilds(t, w, spec, gate.Spec{}, plan.Options{})
	check(t, p, nil, []string{"a.yaml:8 ghcr.io/acme/api:main-a1a1a1a up-to-date"}, nil)

	w2 := newGateWorld(t)
	w2.push(t, "acme/api", "main-c3c3c3c", ago(9*day))
	w2.push(t, "acme/api", "main-f6f6f6f", ago(day))
	p = planBuilds(t, w2, spec, gate.Spec{}, plan.Options{})
	check(t, p, nil, []string{"a.yaml:8 ghcr.io/acme/api:main-a1a1a1a build-unknown: main-a1a1a1a is not in the registry's listing: nothing to order against, so nothing is proposed"},
		[]string{"a.yaml:8 dangling: ghcr.io/acme/api:main-a1a1a1a is gone from the registry (not in its tag list): …"})
}

// TestOrderFirstSeen: tags there at the first recorded run are ordered by
// created; afterwards a tag first seen later is newer, whatever its image
// claims (a rebuild of an old commit), at no request for the order.
func TestOrderFirstSeen(t *testing.T) {
	w, _ := buildWorld(t)
	spec := policy.Spec{Order: policy.OrderFirstSeen, Pattern: `^main-`}
	since := ago(10 * day)
	// The first recorded run: every tag seen now, ordered by created.
	p := planBuilds(t, w, spec, gate.Spec{}, plan.Options{FirstSeen: map[string]time.Time{}})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-b2b2b2b build"}, nil, nil)
	if len(p.Seen) != 4 {
		t.Errorf("recorded %d sightings, want the 4 builds", len(p.Seen))
	}
	seen := maps.Clone(p.Seen)
	for k := range seen {
		seen[k] = since
	}
	// A rebuild of an old commit, claiming to be 30 days old, pushed now.
	w.push(t, "acme/api", "main-9e9e9e9", ago(30*day))
	w.srv.Reset()
	p = planBuilds(t, w, spec, gate.Spec{}, plan.Options{FirstSeen: seen, SeenSince: since})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-9e9e9e9 build"}, nil, nil)
	if o := p.Updates[0].Order; o == nil || o.By != "firstSeen" || o.Requests != 0 {
		t.Errorf("order = %+v, want firstSeen at no request", o)
	}
	if got := w.srv.Count("GET", "/manifests/") + w.srv.Count("GET", "/blobs/"); got != 0 {
		t.Errorf("firstSeen cost %d manifest and blob GETs, want 0", got)
	}
	// The same under created: the rebuild is older than current.
	p = planBuilds(t, w, policy.Spec{Order: policy.OrderCreated, Pattern: `^main-`}, gate.Spec{}, plan.Options{})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-b2b2b2b build"}, nil, nil)
}

// TestOrderMinAge: minAge holds a build younger than it for the next.
func TestOrderMinAge(t *testing.T) {
	w, kept := buildWorld(t)
	spec := policy.Spec{Order: policy.OrderCreated, Pattern: `^main-`}
	p := planBuilds(t, w, spec, gate.Spec{MinAge: 2*day + time.Hour}, plan.Options{Builds: kept})
	check(t, p, []string{"ghcr.io/acme/api main-a1a1a1a -> main-f6f6f6f build note: held back main-b2b2b2b: 2d old, minAge 2d1h"}, nil, nil)
}

// TestOrderBound: a run reads at most 50 build times per image (current
// first, then from the end of the listing back) and says how many are
// left; with the cache the next run reads those and no more.
func TestOrderBound(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "acme/api", "main-a1a1a1a", ago(100*day))
	for i := range 55 {
		w.push(t, "acme/api", fmt.Sprintf("main-%07x", 0xc000000+i), ago(time.Duration(90-i)*day))
	}
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kept := cacheBuilds{c}
	spec := policy.Spec{Order: policy.OrderCreated, Pattern: `^main-`}
	p := planBuilds(t, w, spec, gate.Spec{}, plan.Options{Builds: kept})
	if len(p.Updates) != 1 {
		t.Fatalf("updates %+v", p.Updates)
	}
	if o := p.Updates[0].Order; o.Requests != 100 || o.Undated != 6 {
		t.Errorf("first run: order %+v, want 100 requests, 6 undated", o)
	}
	if n := strings.Count(p.Updates[0].Notice, "6 builds not dated yet (at most 50 a run)"); n != 1 {
		t.Errorf("notice %q", p.Updates[0].Notice)
	}
	p = planBuilds(t, w, spec, gate.Spec{}, plan.Options{Builds: kept})
	if o := p.Updates[0].Order; o.Requests != 12 || o.Undated != 0 {
		t.Errorf("second run: order %+v, want 12 requests, none undated", o)
	}
	if got, want := p.Updates[0].To, fmt.Sprintf("main-%07x", 0xc000000+54); got != want {
		t.Errorf("to %s, want the newest build %s", got, want)
	}
}
