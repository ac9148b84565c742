package registry_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// tokenServer is a registry behind a token service holding n
// repositories, acme/app00 ... under their names.
func tokenServer(t *testing.T, n int, names func(int) string, opts ...registrytest.Option) (*registrytest.Server, []string) {
	t.Helper()
	srv := memServer(t, append([]registrytest.Option{registrytest.WithTokenAuth(5 * time.Minute)}, opts...)...)
	img := registrytest.Image(t, "app", created, nil)
	var repos []string
	for i := range n {
		srv.Push(t, names(i), "1.0.0", img)
		repos = append(repos, "ghcr.io/"+names(i))
	}
	return srv, repos
}

func appName(i int) string { return fmt.Sprintf("acme/app%03d", i) }

// lookupEach lists the tags and resolves the digest of every repository,
// all at once.
func lookupEach(t *testing.T, c *registry.Client, repos []string) {
	t.Helper()
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Go(func() {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, r)); err != nil {
				t.Error(err)
			}
			if _, err := c.Digest(t.Context(), registrytest.Tag(t, r, "1.0.0")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func pings(srv *registrytest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == "/v2/" {
			n++
		}
	}
	return n
}

// TestOneProbeAndOneToken: a run probes a host once, whatever the number
// of repositories, and asks one token for every repository it expects;
// every request after that is authorized the first time.
func TestOneProbeAndOneToken(t *testing.T) {
	tests := []struct {
		name       string
		expect     bool
		wantTokens int
	}{
		{name: "expected repositories share one token", expect: true, wantTokens: 1},
		{name: "without Expect, a token per repository", expect: false, wantTokens: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, repos := tokenServer(t, 100, appName)
				c := memClient([]*registrytest.Server{srv})
				if tc.expect {
					c.Expect(registrytest.Repos(t, repos...)...)
				}
				lookupEach(t, c, repos)

				if n := pings(srv); n != 1 {
					t.Errorf("/v2/ probes = %d, want 1", n)
				}
				scopes := srv.Scopes()
				if len(scopes) != tc.wantTokens {
					t.Errorf("token requests = %d, want %d", len(scopes), tc.wantTokens)
				}
				asked := slices.Concat(scopes...)
				slices.Sort(asked)
				if len(slices.Compact(asked)) != 100 || len(asked) != 100 {
					t.Errorf("scopes asked: %d (%d distinct), want each of the 100 once", len(asked), len(slices.Compact(asked)))
				}
				// No request was challenged and sent again.
				want := registry.HostStats{Host: srv.Host(), Requests: 1 + tc.wantTokens + 200,
					Ping: 1, Token: tc.wantTokens, Tags: 100, ManifestHead: 100}
				if diff := cmp.Diff([]registry.HostStats{want}, c.Stats()); diff != "" {
					t.Errorf("Stats (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestExpiredTokenRefreshedForItsGroup: when a shared token expires, the
// next request of its group is challenged once and one new token covers
// the whole group again.
func TestExpiredTokenRefreshedForItsGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 40, appName)
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		for _, r := range repos {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, r)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(6 * time.Minute) // the tokens live 5
		for _, r := range repos {
			if _, err := c.Digest(t.Context(), registrytest.Tag(t, r, "1.0.0")); err != nil {
				t.Fatal(err)
			}
		}
		var got []int
		for _, s := range srv.Scopes() {
			got = append(got, len(s))
		}
		// One token for the 40, asked again once, with all its scopes.
		if diff := cmp.Diff([]int{40, 40}, got); diff != "" {
			t.Errorf("scopes per token request (-want +got):\n%s", diff)
		}
		if heads := srv.Count(http.MethodHead, "/manifests/"); heads != 40+1 {
			t.Errorf("HEADs = %d, want 40 and one challenged", heads)
		}
	})
}

// tokenRequests sorts the token requests srv received by the length of
// their request line: refused if over limit (the server said 414),
// issued otherwise.
func tokenRequests(srv *registrytest.Server, limit int) (refused, issued []int) {
	for _, r := range srv.Requests() {
		if r.Path != "/token" {
			continue
		}
		n := len(r.Method + " " + r.Path + "?" + r.Query)
		if n > limit {
			refused = append(refused, n)
		} else {
			issued = append(issued, n)
		}
	}
	return refused, issued
}

// TestTokenURLLimitLearnt: behind a front that refuses long token requests
// (414), a run halves its token requests until they pass and keeps that
// size for the rest of the run: a refusal or two, then a few tokens, where
// a token per repository would cost 200.
func TestTokenURLLimitLearnt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 4000 // a request line of 4,000 bytes holds about 95 scopes here
		srv, repos := tokenServer(t, 200, appName, registrytest.WithTokenURLLimit(limit))
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		lookupEach(t, c, repos)

		refused, issued := tokenRequests(srv, limit)
		// 200 scopes refused, then 100 refused, which teaches 50: four
		// tokens (a second group of 100 may be refused too if it was asked
		// at the same moment).
		if len(refused) < 2 || len(refused) > 3 {
			t.Errorf("token requests refused: %d %v, want 2 or 3", len(refused), refused)
		}
		if len(issued) != 4 {
			t.Errorf("tokens issued: %d, want 4 (50 repositories each)", len(issued))
		}
		if s := c.Stats()[0]; s.Errors != len(refused) || s.Tags != 200 || s.ManifestHead != 200 {
			t.Errorf("Stats = %+v, want only the refused token requests failed and each lookup once", s)
		}
	})
}

// TestOversizedTokenSplit: a token that lists an access entry per
// repository (as Docker Hub's JWTs do) grows past what a header may carry;
// the run does not send it, asks again for as many repositories as fit,
// and no request is refused for its header.
func TestOversizedTokenSplit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 100, appName, registrytest.WithScopedTokens(), registrytest.WithHeaderLimit(8<<10))
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		lookupEach(t, c, repos)

		// One token for the 100 (about 15 KiB), not used; then three, of
		// at most 43 repositories each.
		var got []int
		for _, s := range srv.Scopes() {
			got = append(got, len(s))
		}
		if len(got) != 4 || got[0] != 100 || slices.Max(got[1:]) > 45 {
			t.Errorf("scopes per token request = %v, want 100 then three of about 43", got)
		}
		if s := c.Stats()[0]; s.Errors != 0 || s.Tags != 100 || s.ManifestHead != 100 {
			t.Errorf("Stats = %+v, want no request refused and each lookup once", s)
		}
	})
}

// TestDeniedRepositoryFailsAlone: a token service that refuses a request
// because one of its scopes is forbidden makes the group ask again in
// halves: the forbidden repository fails, the others do not, and finding
// it costs a few requests, not one per repository.
func TestDeniedRepositoryFailsAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 10, appName)
		srv.DenyScope(appName(3))
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		for i, r := range repos {
			_, err := c.Tags(t.Context(), registrytest.Repo(t, r))
			if i == 3 {
				if err == nil || !strings.Contains(err.Error(), "denied") {
					t.Errorf("%s: %v, want it denied", r, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", r, err)
			}
		}
		// 10 refused; 0-4 refused, 5-9 issued; 0-2 issued, 3-4 refused;
		// 3 refused, 4 issued.
		if n := len(srv.Scopes()); n != 7 {
			t.Errorf("token requests = %d, want 7", n)
		}
	})
}

// TestTokenLimitRemembered: what a run learnt of a token service's limit
// is kept with --cache, so that the next run asks tokens of the right
// size at once: no refusal, the same four tokens.
func TestTokenLimitRemembered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 4000
		srv, repos := tokenServer(t, 200, appName, registrytest.WithTokenURLLimit(limit))
		dir := t.TempDir()
		for run, wantRefused := range []int{2, 0} {
			cc, err := cache.Open(dir, cache.WithTTL(0)) // every listing asked again
			if err != nil {
				t.Fatal(err)
			}
			srv.Reset()
			c := memClient([]*registrytest.Server{srv}, registry.WithCache(cc))
			c.Expect(registrytest.Repos(t, repos...)...)
			lookupEach(t, c, repos)
			c.Flush()
			refused, issued := tokenRequests(srv, limit)
			if len(refused) < wantRefused || (wantRefused == 0 && len(refused) != 0) || len(issued) != 4 {
				t.Errorf("run %d: %d token requests refused, %d issued; want %d refused (or a third at the same moment), 4 issued", run+1, len(refused), len(issued), wantRefused)
			}
		}
	})
}

// TestSingleScopeTokenService: a token service that grants only the first
// scope of a request leaves the others' requests unauthorized. Each such
// repository is served with a token of its own, and after two the run
// asks one token per repository: every lookup succeeds, at the cost of a
// few requests, not of the run.
func TestSingleScopeTokenService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, repos := tokenServer(t, 50, appName, registrytest.WithSingleScopeTokens())
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		for _, r := range repos { // one at a time: the count below is exact
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, r)); err != nil {
				t.Errorf("%s: %v", r, err)
			}
		}
		// The shared token (50 scopes), which serves the first repository;
		// for the next two, its renewal and a token of their own; then one
		// token for each of the other 47.
		if n := len(srv.Scopes()); n != 1+2*2+47 {
			t.Errorf("token requests = %d, want %d", n, 1+2*2+47)
		}
		if s := c.Stats()[0]; s.Tags != 50+2*2 {
			t.Errorf("listings = %d, want 50 and two refused twice for the first two cures", s.Tags)
		}
	})
}
