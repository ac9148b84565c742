package chartrepo_test

import (
	"errors"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// TestExpect: an index parsed for the expected charts keeps only them, a
// chart not expected costs a second fetch rather than a wrong "no such
// chart", and a cache that kept fewer charts than a run needs is a miss.
func TestExpect(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	c := chartrepo.New()
	c.Expect(repo.URL, "nginx")
	if _, err := c.Versions(t.Context(), repo.URL, "nginx"); err != nil {
		t.Fatal(err)
	}
	if n := repo.Requests(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	if ch, err := c.Versions(t.Context(), repo.URL, "old"); err != nil || len(ch.Versions) != 1 {
		t.Fatalf("old: %v, %v", ch, err)
	}
	if n := repo.Requests(); n != 2 {
		t.Errorf("%d requests, want 2 (the unexpected chart fetches the whole index)", n)
	}
	if _, err := c.Versions(t.Context(), repo.URL, "nope"); !errors.Is(err, chartrepo.ErrNoChart) {
		t.Errorf("nope: %v, want ErrNoChart", err)
	}

	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := chartrepo.New(chartrepo.WithCache(store))
	first.Expect(repo.URL, "nginx")
	if _, err := first.Versions(t.Context(), repo.URL, "nginx"); err != nil {
		t.Fatal(err)
	}
	before := repo.Requests()
	second := chartrepo.New(chartrepo.WithCache(store))
	second.Expect(repo.URL, "old")
	if _, err := second.Versions(t.Context(), repo.URL, "old"); err != nil {
		t.Fatalf("old from a cache that kept nginx only: %v", err)
	}
	if repo.Requests() != before+1 {
		t.Errorf("the cache kept nginx only, yet answered for old")
	}
}

// TestLocalHosts: with the guard on, a repository on this machine is
// refused without a request unless its host is allowed.
func TestLocalHosts(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	c := chartrepo.New(chartrepo.WithLocalHosts(nil))
	_, err := c.Versions(t.Context(), repo.URL, "nginx")
	if !errors.Is(err, chartrepo.ErrLocalHost) || repo.Requests() != 0 {
		t.Fatalf("err %v after %d requests, want ErrLocalHost and none", err, repo.Requests())
	}
	host := repo.URL[len("http://"):]
	c = chartrepo.New(chartrepo.WithLocalHosts([]string{host}))
	if _, err := c.Versions(t.Context(), repo.URL, "nginx"); err != nil {
		t.Fatal(err)
	}
}

// TestRevalidateKeepsCache: a 304 confirms the index the cache holds as
// it is: a run that expects one chart does not narrow a whole index to
// that chart, so the next run, expecting another, is still answered
// from the cache.
func TestRevalidateKeepsCache(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	dir := t.TempDir()
	run := func(ttl time.Duration, chart string) chartrepo.HostStats {
		t.Helper()
		store, err := cache.Open(dir, cache.WithTTL(ttl))
		if err != nil {
			t.Fatal(err)
		}
		c := chartrepo.New(chartrepo.WithCache(store))
		c.Expect(repo.URL, chart)
		if _, err := c.Versions(t.Context(), repo.URL, chart); err != nil {
			t.Fatal(err)
		}
		return c.Stats()[0]
	}
	// The whole index, cached.
	store, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.New(chartrepo.WithCache(store)).Versions(t.Context(), repo.URL, "nginx"); err != nil {
		t.Fatal(err)
	}
	if s := run(0, "nginx"); s.NotModified != 1 {
		t.Fatalf("revalidating run %+v, want one 304", s)
	}
	if s := run(time.Hour, "old"); s.Requests != 0 || s.FromCache != 1 {
		t.Errorf("run expecting another chart %+v, want it from the cache", s)
	}
}
