package registry_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// lookup is one finished Tags call of lookupAll.
type lookup struct {
	err  error
	took time.Duration
}

// lookupAll lists the tags of every repository at once and says when each
// finished, in the bubble's time.
func lookupAll(t *testing.T, c *registry.Client, repos []string) map[string]lookup {
	t.Helper()
	start := time.Now()
	var mu sync.Mutex
	out := map[string]lookup{}
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Go(func() {
			_, err := c.Tags(t.Context(), registrytest.Repo(t, r))
			mu.Lock()
			out[r] = lookup{err, time.Since(start)}
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func repos(host string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s/acme/app%02d", host, i))
	}
	return out
}

func pushRepos(t *testing.T, srv *registrytest.Server, n int) {
	t.Helper()
	img := registrytest.Image(t, "app", created, nil)
	for i := range n {
		srv.Push(t, fmt.Sprintf("acme/app%02d", i), "1.0.0", img)
	}
}

// TestDeadHostCostsAboutAMinute runs with the default timeouts and
// retries: a registry that accepts connections and never answers costs
// its images about a minute in all, not 5 x 30s per image, and the
// images on another registry are done as if it did not exist.
func TestDeadHostCostsAboutAMinute(t *testing.T) {
	tests := []struct {
		name     string
		hang     string        // what hangs
		maxTook  time.Duration // for every lookup on the dead host
		requests int           // the dead host received
	}{
		// The probe times out twice (25s each, 0.5s apart): down.
		{name: "hangs from the first request", hang: "/v2/", maxTook: 55 * time.Second, requests: 2},
		// The 8 listings in flight time out together: one silence (a
		// stall that heals is no dead host); one retry goes alone and
		// times out too: down. The others fail at once.
		{name: "hangs after the probe", hang: "/tags/list", maxTook: 55 * time.Second, requests: 1 + 8 + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dead, alive := memServer(t), memServer(t)
				pushRepos(t, dead, 20)
				pushRepos(t, alive, 20)
				dead.Break(tc.hang, registrytest.Hang, 0)
				c := newClient(registry.WithTransport(registrytest.Transport(dead, alive)),
					registry.WithMirrors(map[string]string{"ghcr.io": dead.URL(), "quay.io": alive.URL()}))

				got := lookupAll(t, c, append(repos("ghcr.io", 20), repos("quay.io", 20)...))
				for _, r := range repos("ghcr.io", 20) {
					if l := got[r]; l.err == nil || l.took > tc.maxTook || !strings.Contains(l.err.Error(), "is down") {
						t.Errorf("%s on the dead host: %v after %s, want 'is down' within %s", r, l.err, l.took, tc.maxTook)
					}
				}
				for _, r := range repos("quay.io", 20) {
					if l := got[r]; l.err != nil || l.took != 0 {
						t.Errorf("%s on the live host: %v after %s, want its tags at once", r, l.err, l.took)
					}
				}
				if n := len(dead.Requests()); n != tc.requests {
					t.Errorf("dead host received %d requests, want %d", n, tc.requests)
				}
			})
		})
	}
}

func TestBrokenBodies(t *testing.T) {
	tests := []struct {
		name    string
		fault   registrytest.Fault
		times   int
		wantErr string // "" for success
		listed  int    // tags/list requests
	}{
		{name: "stall mid-body", fault: registrytest.Stall, wantErr: "did not answer within 25s", listed: 1},
		{name: "one reset is retried", fault: registrytest.Reset, times: 1, listed: 2},
		// Every attempt reset: the request fails once its four retries
		// are spent (one request does not make the host down; see
		// TestResetsAfterEveryRetryMakeTheHostDown). The first went out on
		// the probe's connection, and net/http resends a request whose
		// reused connection was reset: 6 requests arrive.
		{name: "resets for ever", fault: registrytest.Reset, wantErr: "EOF", listed: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := memServer(t)
				pushTags(t, srv, "acme/api", "v1.0.0")
				srv.Break("/tags/list", tc.fault, tc.times)
				c := memClient([]*registrytest.Server{srv})
				start := time.Now()
				_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("Tags: %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("Tags: %v, want it to say %q", err, tc.wantErr)
				}
				if took := time.Since(start); took > 30*time.Second {
					t.Errorf("took %s, want at most one timeout", took)
				}
				if n := srv.Count(http.MethodGet, "/tags/list"); n != tc.listed {
					t.Errorf("tags/list requests = %d, want %d", n, tc.listed)
				}
			})
		})
	}
}

// TestHugeBodiesAreCapped: a 256 MiB tags page or manifest costs the cap
// (4 MiB by default), not its size, and fails the one lookup.
func TestHugeBodiesAreCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushTags(t, srv, "acme/api", "v1.0.0")
		pushTags(t, srv, "acme/ok", "v1.0.0")
		srv.Break("/acme/api/", registrytest.HugeBody, 0)
		c := memClient([]*registrytest.Server{srv})

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, errTags := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
		_, errInfo := c.Info(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "v1.0.0"))
		runtime.ReadMemStats(&after)
		for what, err := range map[string]error{"tags": errTags, "manifest": errInfo} {
			if err == nil || !strings.Contains(err.Error(), "over the 4 MiB allowed") {
				t.Errorf("%s: %v, want it over the 4 MiB allowed", what, err)
			}
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 {
			t.Errorf("reading two huge bodies allocated %d MiB, want about the cap", alloc>>20)
		}
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/ok")); err != nil {
			t.Errorf("another repository: %v", err)
		}
	})
}

func TestPaginationLoops(t *testing.T) {
	tests := []struct {
		name    string
		fault   registrytest.Fault
		limits  registry.Limits
		wantErr string
		listed  int
	}{
		{name: "a page links to itself", fault: registrytest.SelfLink, wantErr: "page 2 links back to", listed: 1},
		{name: "pages repeat under new links", fault: registrytest.RepeatPages,
			wantErr: "page 2 lists no tag that earlier pages did not", listed: 2},
		{name: "page cap", limits: registry.Limits{Pages: 3}, wantErr: "longer than 3 pages", listed: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := memServer(t, registrytest.WithPageSize(2))
				pushTags(t, srv, "acme/api", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0")
				if tc.fault != 0 {
					srv.Break("/tags/list", tc.fault, 0)
				}
				c := memClient([]*registrytest.Server{srv}, registry.WithLimits(tc.limits))
				_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Tags: %v, want it to say %q", err, tc.wantErr)
				}
				if n := srv.Count(http.MethodGet, "/tags/list"); n != tc.listed {
					t.Errorf("tags/list requests = %d, want %d", n, tc.listed)
				}
			})
		})
	}
}
