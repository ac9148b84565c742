package registry_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/registrytest"
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
		// The shared token; per hidden repository its renewal, a token of
		// its own, and that token's renewal for each of its two lookups.
		if n, want := len(srv.Scopes()), 1+len(hidden)*4; n != want {
			t.Errorf("token requests = %d, want %d", n, want)
		}
	})
}
