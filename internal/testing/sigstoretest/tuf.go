package sigstoretest

import (
	"crypto"
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// Repo is a TUF repository over HTTP whose one target, trusted_root.json,
// is a VirtualSigstore's trust root.
type Repo struct {
	srv    *httptest.Server
	root   []byte
	served atomic.Int32
}

// NewRepo serves the trust root of vs (its Fulcio CA, Rekor log and
// timestamp authority) until the test ends. It lists no CT log: a
// VirtualSigstore's certificates carry no SCT, as a private deployment's
// may not.
func NewRepo(tb testing.TB, vs *ca.VirtualSigstore) *Repo {
	tb.Helper()
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), nil, vs.TimestampingAuthorities(), rekorLogs(tb, vs))
	if err != nil {
		tb.Fatal(err)
	}
	trJSON, err := tr.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	dir, rootJSON := write(tb, trJSON)
	r := &Repo{root: rootJSON}
	files := http.FileServer(http.Dir(dir))
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.served.Add(1)
		files.ServeHTTP(w, req)
	}))
	tb.Cleanup(r.srv.Close)
	return r
}

// rekorLogs are vs's Rekor logs as trusted_root.json must carry them.
// VirtualSigstore gives a log's ID as the bytes of its hex spelling, which
// works in memory, but the JSON form holds the raw key ID and its parser
// hex-encodes it again: without decoding here, no entry would match its
// log after the round trip.
func rekorLogs(tb testing.TB, vs *ca.VirtualSigstore) map[string]*root.TransparencyLog {
	logs := vs.RekorLogs()
	for id, l := range logs {
		raw, err := hex.DecodeString(id)
		if err != nil {
			tb.Fatalf("VirtualSigstore log ID %q: %v", id, err)
		}
		c := *l
		c.ID = raw
		logs[id] = &c
	}
	return logs
}

// URL is the repository's base URL.
func (r *Repo) URL() string { return r.srv.URL }

// Root is the initial root.json a client pins.
func (r *Repo) Root() []byte { return r.root }

// Requests counts the requests the repository answered.
func (r *Repo) Requests() int { return int(r.served.Load()) }

// Close stops serving: a client that still asks gets a refused connection,
// as without network.
func (r *Repo) Close() { r.srv.Close() }

// write lays out the repository on disk, with one key for every role and
// consistent snapshots, as Sigstore's, and returns its directory and the
// initial root.json.
func write(tb testing.TB, trustedRoot []byte) (dir string, rootJSON []byte) {
	tb.Helper()
	dir = tb.TempDir()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := sigsig.LoadSigner(priv, crypto.Hash(0))
	if err != nil {
		tb.Fatal(err)
	}
	key, err := metadata.KeyFromPublicKey(priv.Public())
	if err != nil {
		tb.Fatal(err)
	}
	expires := time.Now().AddDate(1, 0, 0).UTC()

	targets := metadata.Targets(expires)
	tf, err := metadata.TargetFile().FromBytes("trusted_root.json", trustedRoot, "sha256")
	if err != nil {
		tb.Fatal(err)
	}
	targets.Signed.Targets["trusted_root.json"] = tf
	writeFile(tb, filepath.Join(dir, "targets", tf.Hashes["sha256"].String()+".trusted_root.json"), trustedRoot)

	r := metadata.Root(expires)
	for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		if err := r.Signed.AddKey(key, role); err != nil {
			tb.Fatal(err)
		}
	}
	for name, m := range map[string]interface {
		Sign(sigsig.Signer) (*metadata.Signature, error)
		ToBytes(bool) ([]byte, error)
	}{"1.root.json": r, "1.targets.json": targets, "1.snapshot.json": metadata.Snapshot(expires), "timestamp.json": metadata.Timestamp(expires)} {
		if _, err := m.Sign(signer); err != nil {
			tb.Fatal(err)
		}
		b, err := m.ToBytes(false)
		if err != nil {
			tb.Fatal(err)
		}
		writeFile(tb, filepath.Join(dir, name), b)
		if name == "1.root.json" {
			rootJSON = b
		}
	}
	return dir, rootJSON
}

func writeFile(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
