package main

import (
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestServeFleet is BenchmarkFleet200x50 small enough for every `make
// test`, checked for what it costs rather than for time: `serve --once`
// over six repositories that reference the same four images, three at
// once, lists each image once per run however many repositories use it,
// opens each repository's pull request, and with --cache the next run
// lists nothing at all.
func TestServeFleet(t *testing.T) {
	const repos, images = 6, 4
	f := newFleet(t, repos, 5, images, 5*time.Millisecond, registrytest.WithLatency(5*time.Millisecond))
	cache := t.TempDir()

	for run, want := range []struct{ listings, open int }{
		{images, repos}, // every image listed once, one PR each
		{0, repos},      // within the TTL: nothing asked; the PRs stay
	} {
		f.reg.Reset()
		code, stderr := f.serve(t, "--parallel", "3", "--cache", cache, "--log-level", "info")
		if code != exitOK {
			t.Fatalf("run %d: status %d\n%s", run+1, code, tail(stderr, 30))
		}
		if n := f.listings(); n != want.listings {
			t.Errorf("run %d: %d tags listings for %d repositories of %d images, want %d", run+1, n, repos, images, want.listings)
		}
		if n := f.openPRs(); n != want.open {
			t.Errorf("run %d: %d pull requests open, want %d", run+1, n, want.open)
		}
		// Each repository's PR is its update's, whose body describes the
		// new image: its manifest and config are read once per run for
		// all the repositories that propose it.
		if run == 0 && f.manifestGETs() == 0 {
			t.Errorf("run 1: no manifest read: the pull requests carry no image details")
		}
		// The cost is logged once per run, for the run's shared clients.
		if n := strings.Count(stderr, `msg="registry requests"`); n != 1 {
			t.Errorf("run %d: %d registry cost lines, want 1 for the run\n%s", run+1, n, tail(stderr, 30))
		}
	}
}
