package registry_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// lookupBoth lists the tags and resolves the digest of every repository,
// all at once, and returns the errors by repository.
func lookupBoth(t *testing.T, c *registry.Client, repos []string) map[string][]error {
	t.Helper()
	var mu sync.Mutex
	errs := map[string][]error{}
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Go(func() {
			_, terr := c.Tags(t.Context(), registrytest.Repo(t, r))
			_, derr := c.Digest(t.Context(), registrytest.Tag(t, r, "1.0.0"))
			mu.Lock()
			defer mu.Unlock()
			for _, err := range []error{terr, derr} {
				if err != nil {
					errs[r] = append(errs[r], err)
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// TestHiddenRepositoriesCostLittle: Docker Hub issues a token for a
// repository that does not exist (or is private), without access to it,
// and answers the registry request 401. Such a repository fails alone, at
// the cost of a few requests; it never holds the request slots while a
// token is asked (which would stall the run until the attempts time out),
// and never makes the host ask one token per repository.
func TestHiddenRepositoriesCostLittle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 100, appName)
		hidden := map[string]bool{}
		for i := 0; i < 100; i += 20 {
			srv.HideScope(appName(i))
			hidden["ghcr.io/"+appName(i)] = true
		}
		c := memClient([]*registrytest.Server{srv}, registry.WithConcurrency(2))
		c.Expect(registrytest.Repos(t, repos...)...)
		start := time.Now()
		errs := lookupBoth(t, c, repos)
		if took := time.Since(start); took > time.Second {
			t.Errorf("the run took %s: lookups waited for slots held by refused answers", took)
		}
		for _, r := range repos {
			switch {
			case hidden[r] && len(errs[r]) != 2:
				t.Errorf("%s: %v, want both lookups refused", r, errs[r])
			case !hidden[r] && len(errs[r]) != 0:
				t.Errorf("%s: %v", r, errs[r])
			}
		}
		// The shared token; per hidden repository its renewal (unless a
		// renewal newer than the token it was refused with answers), a
		// token of its own, and that token's renewal for each of its two
		// lookups.
		if n, most := len(srv.Scopes()), 1+len(hidden)*4; n > most || n < most-len(hidden) {
			t.Errorf("token requests = %d, want %d to %d", n, most-len(hidden), most)
		}
	})
}

// TestLongTokenRequestBroken: a front that answers a long token request
// with a 5xx, a reset connection or nothing at all, instead of 414, does
// not fail the run: the token service answers a short request, so the run
// asks for fewer repositories at a time, and the host is not taken for
// down because of the requests that were too long.
func TestLongTokenRequestBroken(t *testing.T) {
	tests := []struct {
		name       string
		fault      func(*registrytest.Server, int)
		maxRefused int
	}{
		{"502", func(s *registrytest.Server, n int) { s.FailLong("/token", n, http.StatusBadGateway) }, 3},
		{"500", func(s *registrytest.Server, n int) { s.FailLong("/token", n, http.StatusInternalServerError) }, 3},
		// net/http sends a GET again when the reused connection it went on
		// is reset, once per idle connection it tries: up to the pool's
		// size (64 a host) for each of the 3 refused requests.
		{"reset", func(s *registrytest.Server, n int) { s.BreakLong("/token", n, registrytest.Reset) }, 3 * 65},
		{"hang", func(s *registrytest.Server, n int) { s.BreakLong("/token", n, registrytest.Hang) }, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const limit = 4000 // about 95 scopes
				srv, repos := tokenServer(t, 200, appName)
				tc.fault(srv, limit)
				c := memClient([]*registrytest.Server{srv})
				c.Expect(registrytest.Repos(t, repos...)...)
				for r, errs := range lookupBoth(t, c, repos) {
					t.Errorf("%s: %v", r, errs)
				}
				// 200 refused, a probe for one, then 100 refused (twice, at
				// once, or once), then four of 50.
				refused, issued := tokenRequests(srv, limit)
				if len(refused) < 2 || len(refused) > tc.maxRefused || len(issued) != 5 {
					t.Errorf("token requests: %d refused, %d issued; want 2 to %d refused, a probe and 4 tokens", len(refused), len(issued), tc.maxRefused)
				}
			})
		})
	}
}

// TestTokenServiceDown: a token service that fails every request fails
// the run's lookups on that host quickly and with few requests, whatever
// the number of repositories sharing a token.
func TestTokenServiceDown(t *testing.T) {
	tests := []struct {
		name      string
		fault     func(*registrytest.Server)
		maxTokens int
	}{
		// The shared request, then the probe and its retries.
		{"503", func(s *registrytest.Server) { s.Fail("/token", http.StatusServiceUnavailable, 0, nil) }, 1 + 5},
		// The shared request, then the probe and its four retries.
		// net/http sends the first again once on a reused connection.
		{"reset", func(s *registrytest.Server) { s.Break("/token", registrytest.Reset, 0) }, 2 + 5},
		// Rate limited: retried as the registry asks, never split.
		{"429", func(s *registrytest.Server) {
			s.Fail("/token", http.StatusTooManyRequests, 0, http.Header{"Retry-After": {"2"}})
		}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, repos := tokenServer(t, 200, appName)
				tc.fault(srv)
				c := memClient([]*registrytest.Server{srv})
				c.Expect(registrytest.Repos(t, repos...)...)
				start := time.Now()
				errs := lookupBoth(t, c, repos)
				if took := time.Since(start); took > 2*time.Minute {
					t.Errorf("the run took %s", took)
				}
				if len(errs) != len(repos) {
					t.Errorf("%d repositories failed, want all %d", len(errs), len(repos))
				}
				if n := len(srv.Scopes()); n > tc.maxTokens {
					t.Errorf("token requests = %d, want at most %d", n, tc.maxTokens)
				}
				for _, e := range errs[repos[7]] {
					if len(e.Error()) > 1000 {
						t.Errorf("error of %d bytes: %.300s...", len(e.Error()), e)
					}
				}
			})
		})
	}
}

// TestAbandonedTokenRequestNotShared: the lookup that asked a group's
// token gives up (its context ends) while others of the group wait for
// that token. They ask again rather than fail with the context of a
// lookup that was not theirs.
func TestAbandonedTokenRequestNotShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 2, appName)
		srv.Break("/token", registrytest.Hang, 1)
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)

		ctx, cancel := context.WithCancel(t.Context())
		first := make(chan error)
		go func() {
			_, err := c.Tags(ctx, registrytest.Repo(t, repos[0]))
			first <- err
		}()
		synctest.Wait() // the first lookup's token request hangs
		second := make(chan error)
		go func() {
			_, err := c.Tags(t.Context(), registrytest.Repo(t, repos[1]))
			second <- err
		}()
		synctest.Wait() // the second waits for the same token
		cancel()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Errorf("first lookup: %v, want it canceled", err)
		}
		if err := <-second; err != nil {
			t.Errorf("second lookup: %v", err)
		}
	})
}

// TestOversizedTokenSplitBehindRedirect: a token service that redirects
// its token requests elsewhere has its tokens measured as well; an
// oversized one is never sent to the registry.
func TestOversizedTokenSplitBehindRedirect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 100, appName, registrytest.WithTokenRedirect(),
			registrytest.WithScopedTokens(), registrytest.WithHeaderLimit(8<<10))
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		for r, errs := range lookupBoth(t, c, repos) {
			t.Errorf("%s: %v", r, errs)
		}
		if n := srv.Count("", "/oauth/token"); n != 4 {
			t.Errorf("tokens issued = %d, want one for the 100, not used, then three", n)
		}
	})
}

// TestExpiredTokenRenewedOnce: when a group's token expires while its
// lookups are queued, every queued request is refused with the old token;
// they share one renewal rather than each asking a token for the whole
// group again (200 requests naming 200 repositories each).
func TestExpiredTokenRenewedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 200, appName)
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		lookupBoth(t, c, repos[:1])
		time.Sleep(6 * time.Minute) // the token lives 5
		for r, errs := range lookupBoth(t, c, repos) {
			t.Errorf("%s: %v", r, errs)
		}
		if n := len(srv.Scopes()); n > 1+3 {
			t.Errorf("token requests = %d, want the first and about one renewal", n)
		}
	})
}
