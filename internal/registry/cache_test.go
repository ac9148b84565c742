package registry_test

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// cacheWorld is a registry behind a token service with three
// repositories, and a cache directory that outlives each run's Client.
type cacheWorld struct {
	t   *testing.T
	srv *registrytest.Server
	dir string
	ttl time.Duration
}

func newCacheWorld(t *testing.T, ttl time.Duration, opts ...registrytest.Option) *cacheWorld {
	srv := memServer(t, append(opts, registrytest.WithTokenAuth(5*time.Minute), registrytest.WithPageSize(2))...)
	pushTags(t, srv, "acme/api", "1.0.0", "1.1.0", "1.2.0")
	pushTags(t, srv, "acme/web", "2.0.0")
	srv.PushIndex(t, "acme/db", "15.4", registrytest.Index(t, "db", created, nil, "linux/amd64", "linux/arm64"))
	return &cacheWorld{t: t, srv: srv, dir: t.TempDir(), ttl: ttl}
}

// run is one run: a new Client over the same cache directory, listing
// every repository, resolving two digests and reading one image's config.
// It returns what the run saw and what it cost.
func (w *cacheWorld) run() (seen map[string]any, stats registry.HostStats) {
	w.t.Helper()
	cc, err := cache.Open(w.dir, cache.WithTTL(w.ttl))
	if err != nil {
		w.t.Fatal(err)
	}
	c := memClient([]*registrytest.Server{w.srv}, registry.WithCache(cc))
	c.Expect(registrytest.Repos(w.t, "ghcr.io/acme/api", "ghcr.io/acme/web", "ghcr.io/acme/db")...)
	w.srv.Reset()
	ctx := w.t.Context()
	seen = map[string]any{}
	for _, r := range []string{"acme/api", "acme/web", "acme/db"} {
		tags, err := c.Tags(ctx, registrytest.Repo(w.t, "ghcr.io/"+r))
		if err != nil {
			w.t.Fatal(err)
		}
		slices.Sort(tags)
		seen[r] = tags
	}
	for _, ref := range [][2]string{{"acme/api", "1.2.0"}, {"acme/db", "15.4"}} {
		d, err := c.Digest(ctx, registrytest.Tag(w.t, "ghcr.io/"+ref[0], ref[1]))
		if err != nil {
			w.t.Fatal(err)
		}
		seen[ref[0]+":"+ref[1]] = d
	}
	info, err := c.Info(ctx, registrytest.Tag(w.t, "ghcr.io/acme/db", "15.4"))
	if err != nil {
		w.t.Fatal(err)
	}
	seen["info"] = info
	// A tag whose digest the run did not resolve first.
	if info, err = c.Info(ctx, registrytest.Tag(w.t, "ghcr.io/acme/api", "1.1.0")); err != nil {
		w.t.Fatal(err)
	}
	seen["info 1.1.0"] = info
	c.Flush() // the run is done
	s := c.Stats()
	if len(s) != 1 {
		w.t.Fatalf("Stats %+v, want one host", s)
	}
	return seen, s[0]
}

// conditional counts the requests received with a validator, and the 304s
// the client counted.
func conditional(srv *registrytest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			n++
		}
	}
	return n
}

// TestCacheWithinTTL: a second run within the TTL answers everything from
// the cache: listings, digests, the manifests and config behind Info. It
// contacts no host at all, not even for a probe or a token.
func TestCacheWithinTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCacheWorld(t, time.Hour)
		first, s1 := w.run()
		// probe, token, 2+1+1 pages, 2 HEADs, for the first Info the index
		// (by the digest the HEAD found), the child manifest and the
		// config, for the second the manifest by tag and the config.
		if want := (registry.HostStats{Host: w.srv.Host(), Requests: 13, Ping: 1, Token: 1, Tags: 4,
			ManifestHead: 2, ManifestGet: 3, Blob: 2}); s1 != want {
			t.Errorf("first run: %+v, want %+v", s1, want)
		}

		time.Sleep(59 * time.Minute)
		second, s2 := w.run()
		if diff := cmp.Diff(first, second); diff != "" {
			t.Errorf("second run saw (-first +second):\n%s", diff)
		}
		if n := len(w.srv.Requests()); n != 0 || s2.Requests != 0 {
			t.Errorf("second run sent %d requests (%+v), want none", n, s2)
		}
		// 3 listings, 2 digests, the first Info's index, child and
		// config, the second's digest, manifest and config.
		if s2.FromCache != 11 {
			t.Errorf("second run: %d answers from the cache, want 11", s2.FromCache)
		}
	})
}

// TestCacheRevalidates: after the TTL a listing is asked again with its
// validators and a registry that answers 304 costs one request per page;
// digests are resolved again (a tag can move without the listing
// changing), while manifests and configs by digest stay in the cache.
func TestCacheRevalidates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCacheWorld(t, time.Hour, registrytest.WithETags())
		first, _ := w.run()
		time.Sleep(time.Hour)
		second, s := w.run()
		if diff := cmp.Diff(first, second); diff != "" {
			t.Errorf("second run saw (-first +second):\n%s", diff)
		}
		if want := (registry.HostStats{Host: w.srv.Host(), Requests: 9, NotModified: 4, FromCache: 4,
			Ping: 1, Token: 1, Tags: 4, ManifestHead: 2, ManifestGet: 1}); s != want {
			t.Errorf("second run: %+v, want %+v", s, want)
		}
		if n := conditional(w.srv); n != 4 {
			t.Errorf("%d conditional requests, want one per page (4)", n)
		}
		// The first Info's tag was resolved again by the HEAD: its
		// manifests and config come from the cache. The second's tag is
		// asked again by GET, its config from the cache.
		if n := w.srv.Count(http.MethodGet, "/manifests/sha256:") + w.srv.Count(http.MethodGet, "/blobs/"); n != 0 {
			t.Errorf("%d manifest or blob GETs by digest, want none", n)
		}

		// TTL 0: every run revalidates, and still costs one request a page.
		w.ttl = 0
		_, s = w.run()
		if s.NotModified != 4 || s.Tags != 4 {
			t.Errorf("TTL 0: %+v, want 4 pages answered 304", s)
		}
	})
}

// TestCacheSeesChanges: what changed in the registry is seen as soon as
// the TTL is over: a new tag (the listing's page answers 200), and a tag
// pushed again with another image (its digest is resolved again).
func TestCacheSeesChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []registrytest.Option
	}{
		{"etags", []registrytest.Option{registrytest.WithETags()}},
		{"last-modified", []registrytest.Option{registrytest.WithLastModified()}},
		{"no validators", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newCacheWorld(t, time.Hour, tc.opts...)
				time.Sleep(2 * time.Second) // the pushes are a second before the listing
				first, _ := w.run()
				time.Sleep(time.Hour)
				pushTags(t, w.srv, "acme/api", "1.3.0")
				moved := w.srv.Push(t, "acme/api", "1.2.0", registrytest.Image(t, "rebuilt", created, nil))

				second, _ := w.run()
				if got := second["acme/api"]; !slices.Contains(got.([]string), "1.3.0") {
					t.Errorf("tags after a push: %v, want 1.3.0 among them", got)
				}
				if got := second["acme/api:1.2.0"]; got != moved || got == first["acme/api:1.2.0"] {
					t.Errorf("digest of a re-pushed tag: %v, want the new %s", got, moved)
				}
				if diff := cmp.Diff(first["acme/web"], second["acme/web"]); diff != "" {
					t.Errorf("unchanged repository (-first +second):\n%s", diff)
				}
			})
		})
	}
}

// TestCacheLastModifiedSameSecond: a Last-Modified in the very second of
// the answer cannot vouch for the listing (a tag pushed later in that
// second has the same time), so it is not used: the next run lists again
// instead of trusting a 304.
func TestCacheLastModifiedSameSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCacheWorld(t, 0, registrytest.WithLastModified())
		w.run() // in the second of the pushes
		pushTags(t, w.srv, "acme/web", "2.1.0")
		second, s := w.run()
		if got := second["acme/web"]; !slices.Contains(got.([]string), "2.1.0") {
			t.Errorf("tags %v, want the tag pushed in the same second", got)
		}
		if n := conditional(w.srv); n != 0 || s.NotModified != 0 {
			t.Errorf("%d conditional requests (%d answered 304), want none", n, s.NotModified)
		}
		// A second later the validator is good.
		time.Sleep(time.Second)
		w.run()
		_, s = w.run()
		if s.NotModified != 4 {
			t.Errorf("%d answers 304, want 4 pages", s.NotModified)
		}
	})
}

// TestCacheDamaged: a damaged cache costs requests, never a wrong answer.
func TestCacheDamaged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCacheWorld(t, time.Hour)
		first, _ := w.run()
		damage(t, w.dir)
		second, s := w.run()
		if diff := cmp.Diff(first, second); diff != "" {
			t.Errorf("after damage (-first +second):\n%s", diff)
		}
		if s.FromCache != 0 || s.Requests != 13 {
			t.Errorf("after damage: %+v, want everything asked again (13 requests)", s)
		}
	})
}

// TestCacheSharedByClients: several Clients on one Cache at once (serve's
// repositories, or two processes) each get right answers.
func TestCacheSharedByClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newCacheWorld(t, time.Hour, registrytest.WithETags())
		want, _ := w.run()
		time.Sleep(time.Hour)
		done := make(chan map[string]any)
		for range 4 {
			go func() {
				got, _ := w.run()
				done <- got
			}()
		}
		for range 4 {
			if diff := cmp.Diff(want, <-done); diff != "" {
				t.Errorf("concurrent run (-want +got):\n%s", diff)
			}
		}
	})
}

// damage flips the last byte of every file of the cache in dir.
func damage(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(dir, "v1"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b[len(b)-1] ^= 0x20
		return os.WriteFile(path, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
