package registry_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestBudget: once a host's requests are spent, its lookups fail at once
// with ErrBudget; retries count; other hosts keep their own budget.
func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spent, other := memServer(t), memServer(t)
		pushRepos(t, spent, 10)
		pushRepos(t, other, 3)
		// The second listing is retried once (503) and costs 2.
		spent.Fail("/acme/app01/tags/list", http.StatusServiceUnavailable, 1, nil)
		c := newClient(registry.WithTransport(registrytest.Transport(spent, other)),
			registry.WithMirrors(map[string]string{"ghcr.io": spent.URL(), "quay.io": other.URL()}),
			registry.WithMaxRequests(5), registry.WithRetry(2, time.Second))

		var failed []string
		for _, r := range repos("ghcr.io", 10) {
			_, err := c.Tags(t.Context(), registrytest.Repo(t, r))
			switch {
			case err == nil:
			case errors.Is(err, registry.ErrBudget) && strings.Contains(err.Error(), "not looked up: budget"):
				failed = append(failed, r)
			default:
				t.Errorf("%s: %v, want success or ErrBudget", r, err)
			}
		}
		// 5 = the probe, app00, app01 twice, app02.
		if len(failed) != 7 || failed[0] != "ghcr.io/acme/app03" {
			t.Errorf("failed for budget: %v, want app03 and after", failed)
		}
		if n := len(spent.Requests()); n != 5 {
			t.Errorf("host received %d requests, want the 5 of its budget", n)
		}
		for _, r := range repos("quay.io", 3) {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, r)); err != nil {
				t.Errorf("other host: %v", err)
			}
		}
		if s := c.Stats(); len(s) != 2 || s[0].Requests+s[1].Requests != 5+4 {
			t.Errorf("Stats %+v, want 5 and 4 requests", s)
		}
	})
}

// TestBudgetPerHost: a registry's own budget (WithHostMaxRequests, the
// config's registries.HOST.maxRequests) reaches its mirror and replaces the
// budget every other host has.
func TestBudgetPerHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		small, large := memServer(t), memServer(t)
		pushRepos(t, small, 6)
		pushRepos(t, large, 6)
		c := newClient(registry.WithTransport(registrytest.Transport(small, large)),
			registry.WithMirrors(map[string]string{"ghcr.io": small.URL(), "quay.io": large.URL()}),
			registry.WithHostMaxRequests(map[string]int{"ghcr.io": 3}), registry.WithMaxRequests(100))
		var spent []string
		for _, r := range append(repos("ghcr.io", 6), repos("quay.io", 6)...) {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, r)); errors.Is(err, registry.ErrBudget) {
				spent = append(spent, r)
			} else if err != nil {
				t.Errorf("%s: %v", r, err)
			}
		}
		// 3 = the probe, app00, app01.
		if len(spent) != 4 || spent[0] != "ghcr.io/acme/app02" || strings.HasPrefix(spent[3], "quay.io") {
			t.Errorf("failed for budget: %v, want ghcr.io's app02 and after only", spent)
		}
		if n := len(small.Requests()); n != 3 {
			t.Errorf("ghcr.io's mirror received %d requests, want its budget of 3", n)
		}
	})
}

// inflight records the most requests it ever saw at once per host.
type inflight struct {
	next http.RoundTripper
	mu   sync.Mutex
	now  map[string]int
	max  map[string]int
}

func (f *inflight) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.now[req.URL.Host]++
	f.max[req.URL.Host] = max(f.max[req.URL.Host], f.now[req.URL.Host])
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.now[req.URL.Host]--; f.mu.Unlock() }()
	return f.next.RoundTrip(req)
}

// TestConcurrencyPerHost: each host has its own slots: WithHostConcurrency
// for the hosts it names (a mirrored registry's entry for its mirror),
// WithConcurrency or the per-registry default for the others, and a slow
// host does not hold the slots of another.
func TestConcurrencyPerHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := memServer(t, registrytest.WithLatency(10*time.Millisecond)), memServer(t, registrytest.WithLatency(10*time.Millisecond))
		pushRepos(t, a, 12)
		pushRepos(t, b, 12)
		f := &inflight{next: registrytest.Transport(a, b), now: map[string]int{}, max: map[string]int{}}
		c := newClient(registry.WithTransport(f),
			registry.WithMirrors(map[string]string{"ghcr.io": a.URL(), "quay.io": b.URL()}),
			registry.WithHostConcurrency(map[string]int{"ghcr.io": 2}), registry.WithConcurrency(3))
		start := time.Now()
		got := lookupAll(t, c, append(repos("ghcr.io", 12), repos("quay.io", 12)...))
		for r, l := range got {
			if l.err != nil {
				t.Errorf("%s: %v", r, l.err)
			}
		}
		if f.max[a.Host()] != 2 || f.max[b.Host()] != 3 {
			t.Errorf("most requests in flight: %d on the host limited to 2, %d on the one limited to 3",
				f.max[a.Host()], f.max[b.Host()])
		}
		// 1 probe + 12 listings: 7 rounds of 10ms at 2 in flight.
		if took := time.Since(start); took != 70*time.Millisecond {
			t.Errorf("took %s, want 70ms: the slowest host alone decides", took)
		}
	})
}

// TestStatsByKind counts what a lookup of each kind costs.
func TestStatsByKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t, registrytest.WithPageSize(2))
		pushTags(t, srv, "acme/api", "1.0.0", "1.1.0", "1.2.0")
		srv.Fail("/acme/missing/tags/list", http.StatusNotFound, 0, nil)
		c := memClient([]*registrytest.Server{srv})
		c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))     // 2 pages
		c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/missing")) // 404: an error
		c.Digest(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.0.0"))
		c.Info(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.1.0")) // manifest and config
		got := c.Stats()
		want := registry.HostStats{Host: srv.Host(), Requests: 7, Errors: 1,
			Ping: 1, Tags: 3, ManifestHead: 1, ManifestGet: 1, Blob: 1}
		if len(got) != 1 || got[0] != want {
			t.Errorf("Stats = %+v, want %+v", got, want)
		}
	})
}
