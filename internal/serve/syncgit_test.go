package serve

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestSyncNothingMovedOneRequest: syncing a kept checkout whose default
// branch has not moved on origin costs one ref advertisement, the listing
// that names the default branch (before: that listing, then a fetch with
// an advertisement of its own); once origin moved, the sync fetches and
// the checkout is at origin's new tip.
func TestSyncNothingMovedOneRequest(t *testing.T) {
	t.Parallel()
	const tok = "sync-token-5ecret"
	gs, err := gittest.New(gittest.TempDir(t), tok)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("acme", "gitops", map[string][]byte{"apps/a.yaml": []byte("image: nginx:1.25.3\n")}, "trunk"); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	auth := &githttp.BasicAuth{Username: "x-access-token", Password: tok}
	if _, err := git.PlainClone(clone, false, &git.CloneOptions{URL: gs.URL("acme/gitops"), Auth: auth}); err != nil {
		t.Fatal(err)
	}
	s := &Server{o: Options{Token: tok, ResetCheckout: true}, log: slog.New(slog.DiscardHandler)}
	sync := func() gittest.Requests {
		t.Helper()
		before := gs.Requests()
		if err := s.syncTarget(context.Background(), Target{Dir: clone}); err != nil {
			t.Fatalf("sync: %v", err)
		}
		return gs.Requests().Sub(before)
	}
	for i := range 2 {
		if got, want := sync(), (gittest.Requests{Advertisements: 1}); got != want {
			t.Errorf("sync %d with nothing moved: %+v, want %+v", i, got, want)
		}
	}

	seed := filepath.Join(t.TempDir(), "seed")
	runGit(t, "", "clone", "-q", "--branch", "trunk", gs.Dir("acme", "gitops"), seed)
	writeRepoFile(t, seed, "apps/a.yaml", "image: nginx:1.26.1\n")
	runGit(t, seed, "add", "-A")
	runGit(t, seed, "commit", "-q", "-m", "move on")
	runGit(t, seed, "push", "-q", "origin", "trunk")
	want := strings.TrimSpace(runGit(t, seed, "rev-parse", "HEAD"))
	if got, want := sync(), (gittest.Requests{Advertisements: 2, UploadPacks: 1}); got != want {
		t.Errorf("sync after origin moved: %+v, want %+v", got, want)
	}
	if got := strings.TrimSpace(runGit(t, clone, "rev-parse", "HEAD")); got != want {
		t.Errorf("HEAD = %s, want origin's %s", got, want)
	}
	if got := checkoutFiles(t, clone)["apps/a.yaml"]; got != "image: nginx:1.26.1\n" {
		t.Errorf("apps/a.yaml = %q", got)
	}
}
