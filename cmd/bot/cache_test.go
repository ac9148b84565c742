package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
	"github.com/imagebot/imagebot/internal/testing/sigstoretest"
)

// keylessRepo is a repository on ghcr.io/acme/api 1.0.0 with a keyless
// signature policy, against a registry where 1.1.0 is signed by the
// workflow the policy names and 1.2.0 by another, and a TUF repository
// that publishes the trust root both were signed under.
type keylessRepo struct {
	dir string
	reg *registrytest.Server
	tuf *sigstoretest.Repo
}

func newKeylessRepo(t *testing.T) *keylessRepo {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for tag, signer := range map[string]string{
		"1.0.0": "",
		"1.1.0": "https://github.com/acme/api/.github/workflows/release.yml@refs/tags/v1.1.0",
		"1.2.0": "https://github.com/evil/api/.github/workflows/release.yml@refs/tags/v1.2.0",
	} {
		digest := reg.Push(t, "acme/api", tag, registrytest.Image(t, tag, created, nil))
		if signer != "" {
			reg.SignKeyless(t, "acme/api", digest, vs, signer, "https://token.actions.githubusercontent.com")
		}
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".imagebot.yaml"), `policies:
  - match: "ghcr.io/acme/**"
    signature:
      identity: 'https://github\.com/acme/.+'
      issuer: https://token.actions.githubusercontent.com
`)
	writeFile(t, filepath.Join(dir, "app.yaml"), "image: ghcr.io/acme/api:1.0.0\n")
	return &keylessRepo{dir: dir, reg: reg, tuf: sigstoretest.NewRepo(t, vs)}
}

// plan runs `imagebot plan -o json` in-process with args and returns the
// tag it proposes.
func (k *keylessRepo) plan(t *testing.T, args ...string) string {
	t.Helper()
	o, err := parse(newPlanCmd, append([]string{k.dir, "-o", "json", "--mirror", "ghcr.io=" + k.reg.URL()}, args...), environ{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	o.IO = iostreams{Out: &out, ErrOut: &errb}
	o.Cache.sigstore = signature.TUF{URL: k.tuf.URL(), Root: k.tuf.Root()}
	if err := runPlan(t.Context(), o); err != nil {
		t.Fatalf("plan %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	var p struct {
		Updates []struct{ To string }
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("plan output: %v\n%s", err, out.String())
	}
	if len(p.Updates) != 1 {
		t.Fatalf("plan proposes %d updates, want 1:\n%s\n%s", len(p.Updates), out.String(), errb.String())
	}
	return p.Updates[0].To
}

// TestCacheKeepsTrustRoot: with --cache DIR the Sigstore trust root is kept
// in DIR/sigstore, where actions/cache restores it with the registry
// answers, and the next run verifies keyless signatures from it without
// reaching the TUF repository, even after pruning the cache to its bound.
func TestCacheKeepsTrustRoot(t *testing.T) {
	k := newKeylessRepo(t)
	// The user cache directory must stay untouched when --cache is given.
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	cacheDir := filepath.Join(t.TempDir(), "imagebot-cache")

	if got := k.plan(t, "--cache", cacheDir); got != "1.1.0" {
		t.Fatalf("first run proposes %s, want 1.1.0 (1.2.0 is signed by another workflow)", got)
	}
	if k.tuf.Requests() == 0 {
		t.Fatal("the first run never asked the TUF repository: the signature was not checked against it")
	}
	if n := countFiles(t, filepath.Join(cacheDir, trustDir)); n == 0 {
		t.Fatalf("no trust root under %s", filepath.Join(cacheDir, trustDir))
	}
	if n := countFiles(t, home); n != 0 {
		t.Errorf("with --cache, %d files went to the user cache directory", n)
	}

	// Pruning the cache to a bound below any answer removes every
	// registry answer and none of the trust root.
	trustFiles := countFiles(t, filepath.Join(cacheDir, trustDir))
	if _, err := cache.Open(cacheDir, cache.WithMaxBytes(1)); err != nil {
		t.Fatal(err)
	}
	if n := countFiles(t, filepath.Join(cacheDir, "v1")); n != 0 {
		t.Fatalf("pruning to 1 byte left %d registry answers", n)
	}
	if n := countFiles(t, filepath.Join(cacheDir, trustDir)); n != trustFiles {
		t.Fatalf("pruning left %d of the trust root's %d files", n, trustFiles)
	}

	// Without network to the TUF repository, the next run verifies from
	// the kept trust root.
	k.tuf.Close()
	if got := k.plan(t, "--cache", cacheDir, "--cache-size", "1B"); got != "1.1.0" {
		t.Fatalf("second run proposes %s, want 1.1.0", got)
	}
}

// TestTrustRootWithoutCache: without --cache the trust root is kept where
// it was before --cache existed, the user cache directory.
func TestTrustRootWithoutCache(t *testing.T) {
	k := newKeylessRepo(t)
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	if got := k.plan(t); got != "1.1.0" {
		t.Fatalf("plan proposes %s, want 1.1.0", got)
	}
	if n := countFiles(t, filepath.Join(home, "imagebot", "sigstore")); n == 0 {
		t.Fatal("no trust root in the user cache directory")
	}
}

// trustDir is where --cache DIR keeps the Sigstore trust root, as the
// flag's help says: DIR/sigstore.
const trustDir = "sigstore"

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		if os.IsNotExist(err) {
			return filepath.SkipDir
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
