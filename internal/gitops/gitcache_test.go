package gitops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestGitCacheBoundedAndShared: a cache over its bound is dropped after
// the run that wrote it (the next run fetches it all again); runs at once
// on the same cache each read and add whole files, and the run after them
// downloads nothing; removing the cache while a session is open is safe.
func TestGitCacheBoundedAndShared(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.runClean(t)

	small := gittest.TempDir(t)
	bound := func(o *gitops.Options) { o.GitCacheMaxBytes = 1 }
	for run := 1; run <= 2; run++ {
		if _, got := w.cachedRun(t, small, bound); got != withPack {
			t.Errorf("run %d over the bound: %+v, want %+v", run, got, withPack)
		}
		if packs := cachedFiles(t, small, ".pack"); len(packs) != 0 {
			t.Errorf("run %d kept %v over the bound", run, packs)
		}
	}

	cache := gittest.TempDir(t)
	o := w.options(t)
	o.GitCache = cache
	var sessions []*gitops.Session
	for range 3 {
		s, err := gitops.Open(w.ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	for _, s := range sessions {
		p, reg := w.planFS(t, s.FS())
		w.finish(t, s, p, reg)
	}
	for _, s := range sessions {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, got := w.cachedRun(t, cache); got != oneAdvertisement {
		t.Errorf("after runs at once: %+v, want %+v", got, oneAdvertisement)
	}

	s, err := gitops.Open(w.ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	p, reg := w.planFS(t, s.FS())
	if res := w.finish(t, s, p, reg); len(res.Unchanged) != len(streams) {
		t.Errorf("with the cache removed under it: %+v", res)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPruneGitCache: serve's prune keeps the packs of all repositories
// under the bound, dropping those read least recently first, and removes
// what runs cut short left behind an hour ago; directories it did not
// make (no origin file) are left alone.
func TestPruneGitCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := func(name string, size int, used time.Time) string {
		p := filepath.Join(dir, "v1", name)
		writeFileAll(t, filepath.Join(p, "gen-000000001-x", "pack-1.pack"), make([]byte, size))
		writeFileAll(t, filepath.Join(p, "origin"), []byte("https://example.com/"+name+"\n"))
		if err := os.Chtimes(filepath.Join(p, "origin"), used, used); err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := time.Now()
	old := repo("old", 600, now.Add(-2*time.Hour))
	recent := repo("recent", 600, now)
	stale := filepath.Join(recent, ".tmp-123")
	writeFileAll(t, stale, make([]byte, 100))
	if err := os.Chtimes(stale, now.Add(-2*time.Hour), now.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(recent, ".tmp-456")
	writeFileAll(t, fresh, nil)
	other := filepath.Join(dir, "v1", "not-ours")
	writeFileAll(t, filepath.Join(other, "file"), make([]byte, 5000))

	if err := gitops.PruneGitCache(dir, 1000); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{old: false, recent: true, stale: false, fresh: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s kept: %v, want %v", strings.TrimPrefix(p, dir), err == nil, want)
		}
	}
	if err := gitops.PruneGitCache(filepath.Join(dir, "none"), 1000); err != nil {
		t.Errorf("no cache yet: %v", err)
	}
}

func writeFileAll(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, b)
}

// TestGitCacheRunsAtOnce: sessions opened and closed at the same time on
// one cache, each reading it and adding the pack of origin's new commit, leave it whole: the next run
// reads it without a warning (or finds none left, and fetches), and plans
// from origin's tip.
func TestGitCacheRunsAtOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.runClean(t)
	cache := gittest.TempDir(t)
	o := w.options(t)
	o.GitCache = cache
	for round := range 3 {
		if round > 0 { // every session then fetches and adds a pack
			w.commitWithGit(t, fmt.Sprintf("docs/round-%d.md", round), "moved\n")
		}
		errs := make(chan error, 4)
		for range cap(errs) {
			go func() {
				s, err := gitops.Open(w.ctx, o)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		for range cap(errs) {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		w.logs.Reset()
		res, got := w.cachedRun(t, cache)
		if strings.Contains(w.logs.String(), "git cache") {
			t.Errorf("round %d: the cache was not whole:\n%s", round, w.logs.String())
		}
		if got != oneAdvertisement && got != withPack {
			t.Errorf("round %d: %+v", round, got)
		}
		if len(res.Unchanged) != len(streams) {
			t.Errorf("round %d: %+v", round, res)
		}
	}
}
