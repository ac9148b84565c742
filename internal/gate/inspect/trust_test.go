package inspect_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
	"github.com/imagebot/imagebot/internal/testing/sigstoretest"
)

// keylessWorld is a registry with one keyless-signed image, and a TUF
// repository publishing the trust root that signed it.
func keylessWorld(t *testing.T) (*registrytest.Server, string, *sigstoretest.Repo) {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	srv := registrytest.NewServer(t)
	digest := srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "1.0.0", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	srv.SignKeyless(t, "acme/api", digest, vs, signer, issuer)
	return srv, digest, sigstoretest.NewRepo(t, vs)
}

var byWorkflow = gate.Signature{Identity: regexp.MustCompile(`^https://github\.com/acme/.+$`), Issuer: issuer}

func verifyWith(t *testing.T, srv *registrytest.Server, digest string, trust *inspect.Trust) error {
	t.Helper()
	_, err := inspect.New(client(srv), inspect.WithTrust(trust)).Verify(t.Context(), registrytest.Digest(t, repo, digest), byWorkflow)
	return err
}

// TestTrustKeptInDir: the trust root fetched through TUF is kept in the
// Trust's directory, and the next run verifies from it without network.
func TestTrustKeptInDir(t *testing.T) {
	srv, digest, tuf := keylessWorld(t)
	repoTUF := signature.TUF{URL: tuf.URL(), Root: tuf.Root()}
	dir := filepath.Join(t.TempDir(), "sigstore")

	if err := verifyWith(t, srv, digest, inspect.NewTrust(repoTUF, dir)); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if tuf.Requests() == 0 {
		t.Fatal("the first run never asked the TUF repository")
	}
	if _, err := os.Stat(filepath.Join(dir, "127.0.0.1-"+port(t, tuf.URL()), "targets")); err != nil {
		t.Fatalf("trust root not kept in %s: %v", dir, err)
	}

	tuf.Close()
	if err := verifyWith(t, srv, digest, inspect.NewTrust(repoTUF, dir)); err != nil {
		t.Fatalf("second run, without the TUF repository: %v", err)
	}
}

// TestTrustShared: Inspectors that share a Trust fetch it once.
func TestTrustShared(t *testing.T) {
	srv, digest, tuf := keylessWorld(t)
	trust := inspect.NewTrust(signature.TUF{URL: tuf.URL(), Root: tuf.Root()}, "")
	if err := verifyWith(t, srv, digest, trust); err != nil {
		t.Fatal(err)
	}
	n := tuf.Requests()
	if err := verifyWith(t, srv, digest, trust); err != nil {
		t.Fatal(err)
	}
	if got := tuf.Requests(); got != n {
		t.Errorf("a second Inspector on the same Trust sent %d more TUF requests, want 0", got-n)
	}
}

// TestTrustUnwritableDir: a directory that cannot be made (the release
// image's read-only root filesystem) costs the cache, not the check.
func TestTrustUnwritableDir(t *testing.T) {
	srv, digest, tuf := keylessWorld(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A path under a regular file fails to be made even for root, which
	// a read-only mode would not stop.
	trust := inspect.NewTrust(signature.TUF{URL: tuf.URL(), Root: tuf.Root()}, filepath.Join(file, "sigstore"))
	if err := verifyWith(t, srv, digest, trust); err != nil {
		t.Fatalf("with an unwritable trust directory: %v", err)
	}
}

// TestTrustRetriedAfterCancel: a fetch that failed because its caller gave
// up is not kept for the others sharing the Trust.
func TestTrustRetriedAfterCancel(t *testing.T) {
	srv, digest, tuf := keylessWorld(t)
	trust := inspect.NewTrust(signature.TUF{URL: tuf.URL(), Root: tuf.Root()}, "")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ref := registrytest.Digest(t, repo, digest)
	if _, err := inspect.New(client(srv), inspect.WithTrust(trust)).Verify(ctx, ref, byWorkflow); err == nil {
		t.Fatal("Verify with a cancelled context succeeded")
	}
	if err := verifyWith(t, srv, digest, trust); err != nil {
		t.Fatalf("after another caller's cancelled fetch: %v", err)
	}
}

func port(t *testing.T, u string) string {
	t.Helper()
	i := len(u) - 1
	for i >= 0 && u[i] != ':' {
		i--
	}
	return u[i+1:]
}
