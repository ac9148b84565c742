package signature

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tuf"

	"github.com/imagebot/imagebot/internal/testing/sigstoretest"
)

// TestCachedTrustedRootVerified: the trusted root kept in the cache
// directory is a TUF target, checked against the signed targets metadata
// (whose keys chain to the root.json imagebot starts from, never to the
// cached one) every time it is read: a trusted_root.json replaced on disk
// by another, valid one is never used; it is fetched again. Someone who
// can write the cache cannot make a rogue Sigstore instance's signatures
// pass.
func TestCachedTrustedRootVerified(t *testing.T) {
	newRepo := func() *sigstoretest.Repo {
		vs, err := ca.NewVirtualSigstore()
		if err != nil {
			t.Fatal(err)
		}
		return sigstoretest.NewRepo(t, vs)
	}
	repo, rogue := newRepo(), newRepo()
	opts := func(r *sigstoretest.Repo) *tuf.Options {
		return tuf.DefaultOptions().WithRoot(r.Root()).WithRepositoryBaseURL(r.URL())
	}
	cache, rogueCache := t.TempDir(), t.TempDir()
	real, err := fetchTrustedRoot(t.Context(), opts(repo), cache)
	if err != nil {
		t.Fatal(err)
	}
	fake, err := fetchTrustedRoot(t.Context(), opts(rogue), rogueCache)
	if err != nil {
		t.Fatal(err)
	}
	realLogs, fakeLogs := slices.Sorted(maps.Keys(real.RekorLogs())), slices.Sorted(maps.Keys(fake.RekorLogs()))
	if slices.Equal(realLogs, fakeLogs) {
		t.Fatal("the two instances share a Rekor log")
	}
	// The rogue instance's trusted root, valid JSON, in place of the real
	// one's cached target.
	forged, err := os.ReadFile(trustedRootFile(t, rogueCache))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trustedRootFile(t, cache), forged, 0o644); err != nil {
		t.Fatal(err)
	}

	before := repo.Requests()
	got, err := fetchTrustedRoot(t.Context(), opts(repo), cache)
	if err != nil {
		t.Fatal(err)
	}
	if gotLogs := slices.Sorted(maps.Keys(got.RekorLogs())); !slices.Equal(gotLogs, realLogs) {
		t.Errorf("Rekor logs %v, want the real instance's %v (the forged cache was used)", gotLogs, realLogs)
	}
	if repo.Requests() == before {
		t.Error("the forged target was not fetched again")
	}
}

// trustedRootFile is the cached trusted_root.json target below dir.
func trustedRootFile(t *testing.T, dir string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "trusted_root.json") && strings.Contains(filepath.ToSlash(p), "/targets/") {
			found = p
		}
		return err
	})
	if found == "" {
		t.Fatalf("no cached trusted_root.json below %s", dir)
	}
	return found
}
