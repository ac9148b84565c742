package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestRunGitCacheRequests: `run --cache DIR` keeps the git packs it
// fetched in DIR/git. The run after the PRs were opened downloads the
// bot's branches once; from then on a rerun with nothing to do costs one
// ref advertisement and no pack (without --cache: an advertisement and a
// pack; before, two of each).
func TestRunGitCacheRequests(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	cache := filepath.Join(t.TempDir(), "cache")
	want := []gittest.Requests{
		1: {Advertisements: 1, UploadPacks: 1},
		2: {Advertisements: 1},
		3: {Advertisements: 1},
	}
	for run := range want {
		before := e.gs.Requests()
		if _, stderr, code := e.run(t, "--cache", cache); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, stderr)
		}
		if got := e.gs.Requests().Sub(before); run > 0 && got != want[run] {
			t.Errorf("run %d: %+v, want %+v", run, got, want[run])
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "git", "v1")); err != nil {
		t.Errorf("no git packs kept: %v", err)
	}
}

// TestServeCloneGitRequests: a pass of `serve --clone --cache` over a
// repository where nothing moved costs two git requests: the advertisement
// that syncs the kept clone and the run's own (before: 6, 4 of them
// advertisements and 2 packs).
func TestServeCloneGitRequests(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	dir := t.TempDir()
	args := []string{"serve", "--once", "--workdir", filepath.Join(dir, "work"), "--clone", e.gs.URL("acme/gitops"), "--cache", filepath.Join(dir, "cache")}
	args = append(args, e.args[2:]...) // the mirrors
	want := []gittest.Requests{
		2: {Advertisements: 2},
		3: {Advertisements: 2},
	}
	for pass := range want {
		before := e.gs.Requests()
		if _, stderr, code := imagebot(t, e.env, args...); code != 0 {
			t.Fatalf("pass %d: exit %d\n%s", pass, code, stderr)
		}
		// The first pass clones and opens the PRs, the second downloads
		// them once.
		if got := e.gs.Requests().Sub(before); pass >= 2 && got != want[pass] {
			t.Errorf("pass %d: %+v, want %+v", pass, got, want[pass])
		}
	}
}
