package signature

import (
	"crypto"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// tufRepo writes a TUF repository (one key for every role, consistent
// snapshots, as Sigstore's) whose one target is trustedRoot, and returns
// its directory and the initial root.json a client pins.
func tufRepo(t *testing.T, trustedRoot []byte) (dir string, rootJSON []byte) {
	t.Helper()
	dir = t.TempDir()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sigsig.LoadSigner(priv, crypto.Hash(0))
	if err != nil {
		t.Fatal(err)
	}
	key, err := metadata.KeyFromPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Now().AddDate(1, 0, 0).UTC()

	targets := metadata.Targets(expires)
	tf, err := metadata.TargetFile().FromBytes("trusted_root.json", trustedRoot, "sha256")
	if err != nil {
		t.Fatal(err)
	}
	targets.Signed.Targets["trusted_root.json"] = tf
	if err := os.MkdirAll(filepath.Join(dir, "targets"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "targets", tf.Hashes["sha256"].String()+".trusted_root.json"), trustedRoot)

	r := metadata.Root(expires)
	for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		if err := r.Signed.AddKey(key, role); err != nil {
			t.Fatal(err)
		}
	}
	snapshot, timestamp := metadata.Snapshot(expires), metadata.Timestamp(expires)
	for name, m := range map[string]interface {
		Sign(sigsig.Signer) (*metadata.Signature, error)
		ToBytes(bool) ([]byte, error)
	}{"1.root.json": r, "1.targets.json": targets, "1.snapshot.json": snapshot, "timestamp.json": timestamp} {
		if _, err := m.Sign(signer); err != nil {
			t.Fatal(err)
		}
		b, err := m.ToBytes(false)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), b)
	}
	rootJSON, err = os.ReadFile(filepath.Join(dir, "1.root.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, rootJSON
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFetchTrustedRootThroughTUFAndCache(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), vs.CTLogs(), vs.TimestampingAuthorities(), vs.RekorLogs())
	if err != nil {
		t.Fatal(err)
	}
	trJSON, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	dir, rootJSON := tufRepo(t, trJSON)
	var served atomic.Int32
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	opts := func() *tuf.Options {
		return tuf.DefaultOptions().WithRoot(rootJSON).WithRepositoryBaseURL(srv.URL)
	}
	cache := t.TempDir()

	got, err := fetchTrustedRoot(t.Context(), opts(), cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.RekorLogs()) != 1 || len(got.FulcioCertificateAuthorities()) != 1 {
		t.Fatalf("trusted root has %d Rekor logs and %d Fulcio CAs; want the repository's 1 and 1", len(got.RekorLogs()), len(got.FulcioCertificateAuthorities()))
	}
	if served.Load() == 0 {
		t.Fatal("the TUF repository was never asked")
	}

	// A second run within the cache validity works from the cache alone.
	srv.Close()
	if _, err := fetchTrustedRoot(t.Context(), opts(), cache); err != nil {
		t.Fatalf("from cache: %v", err)
	}
}

func TestFetchTrustedRootFailsClearly(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := fetchTrustedRoot(t.Context(), tuf.DefaultOptions().WithRepositoryBaseURL(srv.URL), "")
	if err == nil {
		t.Fatal("fetchTrustedRoot from an empty repository succeeded")
	}
	want := fmt.Sprintf("sigstore trusted root from %s", srv.URL)
	if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("error %q does not start with %q", got, want)
	}
}
