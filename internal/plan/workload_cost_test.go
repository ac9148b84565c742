package plan_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestWorkloadCost is the CI-light run of BenchmarkPlan5000x500: the same
// workload, small enough for every `make test`, checked for what each plan
// costs rather than for time, so that a change that adds requests fails
// here before anyone runs `make bench`. Behind a token service: the first
// plan costs one listing per repository, one HEAD per repository with a
// pinned reference, one probe and one token for them all; the
// second, with a cache, none within the TTL, and with TTL 0 one
// conditional listing per repository (answered 304) and the HEADs.
func TestWorkloadCost(t *testing.T) {
	const files, repos = 300, 40
	w := newWorkload(t, files, repos, registrytest.WithETags(), registrytest.WithTokenAuth(time.Hour))
	cold := registry.HostStats{Host: w.srv.Host(), Requests: repos + w.pinned + 1 + 1,
		Ping: 1, Token: 1, Tags: repos, ManifestHead: w.pinned}

	want, s, _ := w.plan(t)
	if diff := cmp.Diff(cold, s); diff != "" {
		t.Errorf("plan without a cache: requests (-want +got):\n%s", diff)
	}

	dir := t.TempDir()
	for _, run := range []struct {
		name string
		ttl  time.Duration
		want registry.HostStats
	}{
		{"cold cache", time.Hour, cold},
		{"within the TTL", time.Hour, registry.HostStats{Host: w.srv.Host(), FromCache: repos + w.pinned}},
		{"TTL 0", 0, registry.HostStats{Host: w.srv.Host(), Requests: repos + w.pinned + 1 + 1, NotModified: repos,
			Ping: 1, Token: 1, Tags: repos, ManifestHead: w.pinned}},
	} {
		cc, err := cache.Open(dir, cache.WithTTL(run.ttl))
		if err != nil {
			t.Fatal(err)
		}
		got, s, _ := w.plan(t, registry.WithCache(cc))
		if diff := cmp.Diff(run.want, s); diff != "" {
			t.Errorf("%s: requests (-want +got):\n%s", run.name, diff)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(plan.Update{}, "Changes"), cmpopts.EquateComparable(name.Repository{})); diff != "" {
			t.Errorf("%s: plan differs from the one without a cache (-want +got):\n%s", run.name, diff)
		}
	}
}
