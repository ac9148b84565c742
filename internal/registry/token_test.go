package registry_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/registrytest"
)

// tokenServer is a registry behind a token service holding n
// repositories, acme/app00 ... under their names.
func tokenServer(t *testing.T, n int, names func(int) string) (*registrytest.Server, []string) {
	t.Helper()
	srv := memServer(t, registrytest.WithTokenAuth(5*time.Minute))
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

// TestOneProbeAndSharedTokens: a run probes a host once, whatever the
// number of repositories, and asks one token for up to 32 expected
// repositories; every request after that is authorized the first time.
func TestOneProbeAndSharedTokens(t *testing.T) {
	tests := []struct {
		name       string
		expect     bool
		wantTokens int
	}{
		{name: "expected repositories share tokens", expect: true, wantTokens: 4}, // 100 / 32
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
				var asked []string
				for _, s := range scopes {
					if len(s) > 32 {
						t.Errorf("a token request names %d scopes, want at most 32", len(s))
					}
					asked = append(asked, s...)
				}
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
		scopes := srv.Scopes()
		got := []int{}
		for _, s := range scopes {
			got = append(got, len(s))
		}
		// Two groups (32 + 8), each asked again once, with all its scopes.
		if diff := cmp.Diff([]int{32, 8, 32, 8}, got); diff != "" {
			t.Errorf("scopes per token request (-want +got):\n%s", diff)
		}
		if heads := srv.Count(http.MethodHead, "/manifests/"); heads != 40+2 {
			t.Errorf("HEADs = %d, want 40 and one challenged per group", heads)
		}
	})
}

// TestTokenURLsStayShort: repositories with long names go in more tokens,
// each request under 4,000 bytes.
func TestTokenURLsStayShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		long := func(i int) string {
			return fmt.Sprintf("acme/%sapp%03d", strings.Repeat("team-with-a-long-name/", 6), i)
		}
		srv, repos := tokenServer(t, 64, long)
		c := memClient([]*registrytest.Server{srv})
		c.Expect(registrytest.Repos(t, repos...)...)
		lookupEach(t, c, repos)
		n := 0
		for _, r := range srv.Requests() {
			if r.Path != "/token" {
				continue
			}
			n++
			if u := (&url.URL{Scheme: "http", Host: srv.Host(), Path: r.Path, RawQuery: r.Query}).String(); len(u) > 4000 {
				t.Errorf("token request URL of %d bytes", len(u))
			}
		}
		if n <= 2 || n >= 64 {
			t.Errorf("token requests = %d, want more than 64/32 and far fewer than 64", n)
		}
	})
}

// TestDeniedRepositoryFailsAlone: a token service that refuses a request
// because one of its scopes is forbidden makes the group ask again one by
// one: the forbidden repository fails, the others do not.
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
	})
}
