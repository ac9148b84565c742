package gitops_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// cachedRun is one run with Options.GitCache at dir; the session is closed
// (and the cache written) before it returns, as job's runs do.
func (w *world) cachedRun(t *testing.T, dir string, edit ...func(*gitops.Options)) (*gitops.Result, gittest.Requests) {
	t.Helper()
	before := w.gs.Requests()
	o := w.options(t)
	o.GitCache = dir
	for _, e := range edit {
		e(&o)
	}
	s, err := gitops.Open(w.ctx, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	p, reg := w.planFS(t, s.FS())
	res := w.finish(t, s, p, reg)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return res, w.gs.Requests().Sub(before)
}

// oneAdvertisement is a run's git traffic with nothing to download: one
// ref advertisement.
var oneAdvertisement = gittest.Requests{Advertisements: 1}

// withPack is one advertisement and one upload-pack.
var withPack = gittest.Requests{Advertisements: 1, UploadPacks: 1}

// TestNoOpRerunGitRequests: a rerun with nothing to do asks origin for its
// refs once, and downloads the default branch and imagebot's branches in
// one pack (before: two fetches, each an advertisement and a pack, 4
// requests); with a git cache that holds them, it downloads nothing: one
// request. The first run after the PRs were opened fetches the bot's new
// branches; a run writes no pack to the cache when it fetched none.
func TestNoOpRerunGitRequests(t *testing.T) {
	t.Parallel()
	for _, backend := range []bool{false, true} {
		t.Run(map[bool]string{false: "in process", true: "http-backend"}[backend], func(t *testing.T) {
			t.Parallel()
			var opts []worldOption
			if backend {
				opts = append(opts, withHTTPBackend())
			}
			w := newWorld(t, opts...)
			w.runClean(t)
			before := w.gs.Requests()
			res := w.runClean(t)
			if got := w.gs.Requests().Sub(before); got != withPack {
				t.Errorf("no-op rerun without a cache: %+v, want %+v", got, withPack)
			}
			if len(res.Unchanged) != len(streams) {
				t.Errorf("%d unchanged, want %d", len(res.Unchanged), len(streams))
			}

			cache := gittest.TempDir(t)
			if _, got := w.cachedRun(t, cache); got != withPack {
				t.Errorf("first run with an empty cache: %+v, want %+v", got, withPack)
			}
			packs := cachedFiles(t, cache, ".pack")
			for run := 1; run <= 2; run++ {
				res, got := w.cachedRun(t, cache)
				if got != oneAdvertisement {
					t.Errorf("no-op rerun %d with the cache: %+v, want %+v", run, got, oneAdvertisement)
				}
				if len(res.Unchanged) != len(streams) {
					t.Errorf("run %d: %d unchanged, want %d", run, len(res.Unchanged), len(streams))
				}
			}
			if now := cachedFiles(t, cache, ".pack"); len(now) != len(packs) {
				t.Errorf("no-op reruns wrote packs: %v, then %v", packs, now)
			}
		})
	}
}

// cachedFiles are the files of the git cache whose name ends in suffix.
func cachedFiles(t *testing.T, dir, suffix string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGitCacheOriginMoved: with the cache, a rerun after origin's default
// branch moved downloads the new commit (only it: the cache's tips are the
// haves) and plans from it; a rerun after a person pushed to a bot branch
// sees their commit and hands the branch over, without pushing.
func TestGitCacheOriginMoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cache := gittest.TempDir(t)
	w.cachedRun(t, cache)
	w.cachedRun(t, cache)

	w.commitWithGit(t, "docs/moved.md", "main moved\n")
	tip := w.sha(t, main_)
	o := w.options(t)
	o.GitCache = cache
	before := w.gs.Requests()
	s, err := gitops.Open(w.ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Commit() != tip {
		t.Errorf("session at %s, want origin's new tip %s", s.Commit(), tip)
	}
	if b, err := fs.ReadFile(s.FS(), "docs/moved.md"); err != nil || string(b) != "main moved\n" {
		t.Errorf("the new commit's file: %q, %v", b, err)
	}
	if got := w.gs.Requests().Sub(before); got != withPack {
		t.Errorf("after main moved: %+v, want %+v", got, withPack)
	}
	s.Close()
	// The session above kept main's new commit in the cache.
	if _, got := w.cachedRun(t, cache); got != oneAdvertisement {
		t.Errorf("the run after that: %+v, want %+v", got, oneAdvertisement)
	}

	theirs := w.humanPush(t, node, "pin the patch release", map[string]func(string) string{
		"README.md": replace("Image tags", "Pinned by hand. Image tags"),
	})
	pushes := w.gs.Pushes()
	res, got := w.cachedRun(t, cache)
	diffSets(t, "foreign", res.Foreign, []string{node})
	if w.gs.Pushes() != pushes {
		t.Errorf("the run pushed over the person's commit")
	}
	if w.sha(t, node) != theirs {
		t.Errorf("%s moved from the person's commit", node)
	}
	if got != withPack {
		t.Errorf("after a person's push: %+v, want %+v (their commit downloaded)", got, withPack)
	}
}

// TestGitCacheNotTrusted: a cache whose pack is corrupt (bytes changed,
// cut short), or that lacks a pack a run saved with it, is ignored: the
// run fetches as without one, plans from the same tip and changes nothing,
// and the cache is written anew; one that names another repository is
// neither read nor written.
func TestGitCacheNotTrusted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.runClean(t)
	cache := gittest.TempDir(t)
	w.cachedRun(t, cache)

	damage := map[string]func(t *testing.T, pack string){
		"a byte changed": func(t *testing.T, pack string) {
			b, err := os.ReadFile(pack)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			writeFile(t, pack, b)
		},
		"cut short": func(t *testing.T, pack string) {
			if err := os.Truncate(pack, 100); err != nil {
				t.Fatal(err)
			}
		},
		"garbage": func(t *testing.T, pack string) { writeFile(t, pack, []byte("PACK not really")) },
		"a pack missing": func(t *testing.T, pack string) {
			if err := os.Remove(pack); err != nil {
				t.Fatal(err)
			}
		},
	}
	for _, name := range []string{"a byte changed", "cut short", "garbage", "a pack missing"} {
		t.Run(name, func(t *testing.T) {
			packs := cachedFiles(t, cache, ".pack")
			if len(packs) != 1 {
				t.Fatalf("cache packs %v, want 1", packs)
			}
			damage[name](t, packs[0])
			w.logs.Reset()
			res, got := w.cachedRun(t, cache)
			if got != withPack {
				t.Errorf("with a damaged cache: %+v, want %+v", got, withPack)
			}
			if len(res.Unchanged) != len(streams) || len(res.Updated)+len(res.Opened)+len(res.Closed) != 0 {
				t.Errorf("with a damaged cache: %+v", res)
			}
			if !strings.Contains(w.logs.String(), "git cache ignored") {
				t.Errorf("no warning about the cache:\n%s", w.logs.String())
			}
			if _, got := w.cachedRun(t, cache); got != oneAdvertisement {
				t.Errorf("the run after: %+v, want %+v (the cache written anew)", got, oneAdvertisement)
			}
		})
	}

	t.Run("another repository's", func(t *testing.T) {
		markers := cachedFiles(t, cache, "origin")
		if len(markers) != 1 {
			t.Fatalf("origin files %v", markers)
		}
		foreign := []byte("https://example.com/someone/else.git\n")
		writeFile(t, markers[0], foreign)
		packs := cachedFiles(t, cache, "")
		for run := 1; run <= 2; run++ {
			if _, got := w.cachedRun(t, cache); got != withPack {
				t.Errorf("run %d with a foreign cache: %+v, want %+v", run, got, withPack)
			}
		}
		if b, _ := os.ReadFile(markers[0]); string(b) != string(foreign) || !slices.Equal(cachedFiles(t, cache, ""), packs) {
			t.Errorf("the foreign cache was written to")
		}
	})
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGitCachePersonPushesDuringRun: with the cache, a run's push is still
// leased against the tip its advertisement showed: a person's commit that
// lands after it is not overwritten, and the next run sees it and hands
// the branch over.
func TestGitCachePersonPushesDuringRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cache := gittest.TempDir(t)
	w.cachedRun(t, cache)
	w.cachedRun(t, cache)

	w.pushTag(t, "docker.io/library/node", "22.2.0")
	var theirs string
	var herr error
	w.gs.OnNextPush(gittest.BeforeUpdate, func() {
		theirs, herr = w.tryHumanPush(gittest.TempDir(t), node, "pin the patch release", map[string]func(string) string{
			"README.md": replace("Image tags", "Pinned by hand. Image tags"),
		})
	})
	res, _ := w.cachedRun(t, cache)
	if herr != nil {
		t.Fatal(herr)
	}
	if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), "not overwritten") {
		t.Fatalf("failed: %v, want %s's push refused", res.Failed, node)
	}
	if got := w.sha(t, node); got != theirs {
		t.Errorf("%s is at %s, want the person's commit %s", node, got, theirs)
	}
	res, _ = w.cachedRun(t, cache)
	diffSets(t, "foreign", res.Foreign, []string{node})
	if got := w.sha(t, node); got != theirs {
		t.Errorf("the next run moved %s", node)
	}
}

// TestNoOpRerunOtherPrefix: with a branch prefix the config sets, unknown
// when Open fetches, the branches are downloaded from the same
// advertisement in a second pack (none with the cache), and the rerun
// finds every PR current.
func TestNoOpRerunOtherPrefix(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	prefix := func(o *gitops.RunOptions) { o.BranchPrefix = "deps/" }
	if res := w.runClean(t, prefix); len(res.Opened) != len(streams) {
		t.Fatalf("opened %d, want %d", len(res.Opened), len(streams))
	}
	before := w.gs.Requests()
	res := w.runClean(t, prefix)
	if got, want := w.gs.Requests().Sub(before), (gittest.Requests{Advertisements: 1, UploadPacks: 2}); got != want {
		t.Errorf("no-op rerun: %+v, want %+v", got, want)
	}
	if len(res.Unchanged) != len(streams) || !strings.HasPrefix(res.Unchanged[0], "deps/") {
		t.Errorf("unchanged %v", res.Unchanged)
	}
}

// TestFetchFromServerRequiringMultiACK: against a git server that refuses
// a fetch without multi_ack, as Azure Repos does, the run's own fetch
// (one advertisement, one pack) asks for it once the Azure driver's
// workaround is on, and a rerun and the cache work the same.
func TestFetchFromServerRequiringMultiACK(t *testing.T) {
	t.Parallel()
	azure.AllowMultiACK()
	w := newWorld(t)
	w.gs.RequireMultiACK()
	w.runClean(t)
	before := w.gs.Requests()
	if res := w.runClean(t); len(res.Unchanged) != len(streams) {
		t.Errorf("rerun: %+v", res)
	}
	if got := w.gs.Requests().Sub(before); got != withPack {
		t.Errorf("rerun: %+v, want %+v", got, withPack)
	}
	cache := gittest.TempDir(t)
	w.cachedRun(t, cache)
	if _, got := w.cachedRun(t, cache); got != oneAdvertisement {
		t.Errorf("rerun with the cache: %+v, want %+v", got, oneAdvertisement)
	}
}
