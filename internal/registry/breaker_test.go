package registry_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestConcurrentResetsDoNotTripTheBreaker: a burst of connection resets
// on the lookups in flight, then success, is what retries are for; the
// host is down only after requests that got no answer after their
// retries (issue 25, item 14).
func TestConcurrentResetsDoNotTripTheBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushRepos(t, srv, 8)
		// The fault server of the report: a reset, a 5xx and a 429 for
		// each listing in flight, then success.
		srv.Break("/tags/list", registrytest.Reset, 8)
		srv.Fail("/tags/list", http.StatusBadGateway, 8, nil)
		srv.Fail("/tags/list", http.StatusTooManyRequests, 8, nil)
		c := newClient(registry.WithTransport(registrytest.Transport(srv)), viaMirror(srv),
			registry.WithRetry(4, 20*time.Millisecond))
		got := lookupAll(t, c, repos("ghcr.io", 8))
		for _, r := range repos("ghcr.io", 8) {
			if err := got[r].err; err != nil {
				t.Errorf("%s: %v, want its tags after its retries", r, err)
			}
		}
		if n := srv.Count(http.MethodGet, "/tags/list"); n != 32 {
			t.Errorf("tags/list requests = %d, want 32 (8 reset, 8 answered 502, 8 answered 429, 8 served)", n)
		}
	})
}

// TestResetsAfterEveryRetryMakeTheHostDown: requests that got no answer
// after all their retries still make the host down (two in a row), and
// the lookups after them fail at once, without a request.
func TestResetsAfterEveryRetryMakeTheHostDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushRepos(t, srv, 4)
		srv.Break("/tags/list", registrytest.Reset, 0)
		c := newClient(registry.WithTransport(registrytest.Transport(srv)), viaMirror(srv),
			registry.WithRetry(2, 20*time.Millisecond))
		for i, r := range repos("ghcr.io", 4) {
			_, err := c.Tags(t.Context(), registrytest.Repo(t, r))
			switch {
			case err == nil:
				t.Errorf("%s: no error from a host that resets every connection", r)
			case i >= 2 && !strings.Contains(err.Error(), "2 requests in a row got no answer"):
				t.Errorf("%s: %v, want the host down", r, err)
			}
		}
		// Two requests of three attempts each, then no more; net/http
		// resends the first, which went on the probe's connection.
		if n := srv.Count(http.MethodGet, "/tags/list"); n != 7 {
			t.Errorf("tags/list requests = %d, want 7", n)
		}
	})
}

// TestConcurrentTimeoutsAreOneSilence: the lookups in flight timing out
// together, as behind a stall that then heals, are one silence, not one
// each: their retries find every image.
func TestConcurrentTimeoutsAreOneSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushRepos(t, srv, 8)
		srv.Break("/tags/list", registrytest.Hang, 8)
		c := newClient(registry.WithTransport(registrytest.Transport(srv)), viaMirror(srv),
			registry.WithRetry(4, 20*time.Millisecond))
		got := lookupAll(t, c, repos("ghcr.io", 8))
		for _, r := range repos("ghcr.io", 8) {
			if l := got[r]; l.err != nil || l.took > 30*time.Second {
				t.Errorf("%s: %v after %s, want its tags after one timeout", r, l.err, l.took)
			}
		}
	})
}
