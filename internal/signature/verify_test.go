package signature_test

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

const (
	ghIssuer = "https://token.actions.githubusercontent.com"
	acmeID   = "https://github.com/acme/api/.github/workflows/release.yml@refs/tags/v1"
	otherID  = "https://github.com/x/.github/workflows/release.yml@refs/tags/v1"
	repo     = "acme/api"
)

// world is a registry holding two images of acme/api (the candidate and
// another release) and the Sigstore of a test.
type world struct {
	srv    *registrytest.Server
	name   string // "127.0.0.1:PORT/acme/api", as the Fetcher is given it
	digest string // the candidate
	other  string // another image of the repository
	vs     *ca.VirtualSigstore
}

func newWorld(t testing.TB, referrersAPI bool) *world {
	t.Helper()
	var opts []registrytest.Option
	if referrersAPI {
		opts = append(opts, registrytest.WithReferrersAPI())
	}
	srv := registrytest.NewServer(t, opts...)
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	w := &world{srv: srv, name: srv.Host() + "/" + repo, vs: newSigstore(t)}
	w.digest = srv.Push(t, repo, "v2", registrytest.Image(t, "v2", created, nil))
	w.other = srv.Push(t, repo, "v1", registrytest.Image(t, "v1", created, nil))
	return w
}

// trusted is the world's VirtualSigstore as trusted material, without its
// CT log: VirtualSigstore's certificates carry no SCT.
func (w *world) trusted() root.TrustedMaterial { return noCTLog{w.vs} }

type noCTLog struct{ root.TrustedMaterial }

func (noCTLog) CTLogs() map[string]*root.TransparencyLog { return nil }

func keylessPolicy() signature.Policy {
	return signature.Policy{Identity: regexp.MustCompile(`^https://github\.com/acme/`), Issuer: ghIssuer}
}

func fingerprint(t testing.TB, pemKey []byte) string {
	t.Helper()
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemKey)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return "key SHA256:" + hex.EncodeToString(sum[:])
}

func TestVerify(t *testing.T) {
	priv, pub := registrytest.NewKey(t)
	rogue, _ := registrytest.NewKey(t)
	keyPolicy := signature.Policy{Key: pub}
	keyID := fingerprint(t, pub)

	tests := []struct {
		name         string
		referrersAPI bool
		policy       signature.Policy
		sign         func(t *testing.T, w *world)
		want         signature.Evidence
		wantErr      error    // ErrUnsigned, ErrRejected, or nil
		wantMsg      []string // in the error
	}{
		{
			name:   "key, sig tag",
			policy: keyPolicy,
			sign:   func(t *testing.T, w *world) { w.srv.SignWithKey(t, repo, w.digest, priv) },
			want:   signature.Evidence{Method: "sig-tag", Signer: keyID},
		},
		{
			name:    "another key, sig tag",
			policy:  keyPolicy,
			sign:    func(t *testing.T, w *world) { w.srv.SignWithKey(t, repo, w.digest, rogue) },
			wantErr: signature.ErrRejected,
			wantMsg: []string{"sig-tag: does not verify with the policy's key (signed with another key?)", "want " + keyID},
		},
		{
			name:    "unsigned",
			policy:  keyPolicy,
			sign:    func(*testing.T, *world) {},
			wantErr: signature.ErrUnsigned,
		},
		{
			name:         "unsigned, referrers API",
			referrersAPI: true,
			policy:       keyPolicy,
			sign:         func(*testing.T, *world) {},
			wantErr:      signature.ErrUnsigned,
		},
		{
			name:   "signature of another digest replayed under this digest's tag",
			policy: keyPolicy,
			sign: func(t *testing.T, w *world) {
				// The genuine signature of the other release, copied.
				w.srv.SignWithKey(t, repo, w.other, priv)
				copySigTag(t, w, w.other, w.digest)
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"signature is for " + "OTHER" + ", not this digest"},
		},
		{
			name:   "keyless, sig tag",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, w.vs, w.name, w.digest, acmeID, ghIssuer))
			},
			want: signature.Evidence{Method: "sig-tag", Signer: acmeID, Issuer: ghIssuer},
		},
		{
			name:   "keyless, sig tag, another identity",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, w.vs, w.name, w.digest, otherID, ghIssuer))
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"sig-tag signed by " + otherID + " (issuer " + ghIssuer + "): not the identity and issuer wanted; want identity ^https://github\\.com/acme/ issuer " + ghIssuer},
		},
		{
			name:   "keyless, sig tag, another issuer",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, w.vs, w.name, w.digest, acmeID, "https://accounts.google.com"))
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"signed by " + acmeID + " (issuer https://accounts.google.com)"},
		},
		{
			name:   "keyless, sig tag, made in another Sigstore",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, newSigstore(t), w.name, w.digest, acmeID, ghIssuer))
			},
			wantErr: signature.ErrRejected,
			// A name that did not verify is quoted, never reported as the signer.
			wantMsg: []string{"sig-tag: certificate for " + acmeID + " (issuer " + ghIssuer + ") does not verify"},
		},
		{
			name:   "keyless, sig tag, no Rekor entry",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				sig := registrytest.KeylessSignature(t, w.vs, w.name, w.digest, acmeID, ghIssuer)
				delete(sig.Annotations, "dev.sigstore.cosign/bundle")
				w.srv.PushSignatures(t, repo, w.digest, sig)
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"not enough verified log entries"},
		},
		{
			name:         "keyless, referrers API",
			referrersAPI: true,
			policy:       keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keylessBundle(t, w.vs, statement(w.name, w.digest, signPredicate), acmeID, ghIssuer), signPredicate)
			},
			want: signature.Evidence{Method: "referrer", Signer: acmeID, Issuer: ghIssuer},
		},
		{
			name:   "keyless, referrers tag schema",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keylessBundle(t, w.vs, statement(w.name, w.digest, signPredicate), acmeID, ghIssuer), signPredicate)
			},
			want: signature.Evidence{Method: "referrer", Signer: acmeID, Issuer: ghIssuer},
		},
		{
			name:         "keyless, referrers API, Rekor v2 entry and TSA timestamp",
			referrersAPI: true,
			policy:       keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keylessBundleRekorV2(t, w.vs, statement(w.name, w.digest, signPredicate), acmeID, ghIssuer), signPredicate)
			},
			want: signature.Evidence{Method: "referrer", Signer: acmeID, Issuer: ghIssuer},
		},
		{
			name:         "keyless, referrer, another identity",
			referrersAPI: true,
			policy:       keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keylessBundle(t, w.vs, statement(w.name, w.digest, signPredicate), otherID, ghIssuer), signPredicate)
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"referrer signed by " + otherID + " (issuer " + ghIssuer + ")"},
		},
		{
			name:         "key, referrers API",
			referrersAPI: true,
			policy:       keyPolicy,
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, signPredicate)), signPredicate)
			},
			want: signature.Evidence{Method: "referrer", Signer: keyID},
		},
		{
			name:         "referrer bundle of another digest",
			referrersAPI: true,
			policy:       keyPolicy,
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.other, signPredicate)), signPredicate)
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"referrer: signature is for OTHER, not this digest"},
		},
		{
			name:         "attestations are not signatures",
			referrersAPI: true,
			policy:       keyPolicy,
			sign: func(t *testing.T, w *world) {
				pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, slsaPredicate)), slsaPredicate)
			},
			wantErr: signature.ErrUnsigned,
		},
		{
			name:   "key policy, keyless signature",
			policy: keyPolicy,
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, w.vs, w.name, w.digest, otherID, ghIssuer))
			},
			wantErr: signature.ErrRejected,
			wantMsg: []string{"sig-tag: signed with a certificate for " + otherID + " (issuer " + ghIssuer + "), not with a key"},
		},
		{
			name:    "keyless policy, key signature",
			policy:  keylessPolicy(),
			sign:    func(t *testing.T, w *world) { w.srv.SignWithKey(t, repo, w.digest, priv) },
			wantErr: signature.ErrRejected,
			wantMsg: []string{"sig-tag: signed with a key, not with a certificate"},
		},
		{
			name:         "bad sig tag, good referrer",
			referrersAPI: true,
			policy:       keyPolicy,
			sign: func(t *testing.T, w *world) {
				w.srv.SignWithKey(t, repo, w.digest, rogue)
				pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, signPredicate)), signPredicate)
			},
			want: signature.Evidence{Method: "referrer", Signer: keyID},
		},
		{
			name:   "one good signature among several",
			policy: keylessPolicy(),
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest,
					registrytest.KeylessSignature(t, w.vs, w.name, w.digest, otherID, ghIssuer),
					registrytest.KeylessSignature(t, w.vs, w.name, w.digest, acmeID, ghIssuer))
			},
			want: signature.Evidence{Method: "sig-tag", Signer: acmeID, Issuer: ghIssuer},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.referrersAPI)
			tc.sign(t, w)
			v, err := signature.NewVerifier(tc.policy, w.trusted())
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.Verify(context.Background(), newFetcher(), registrytest.Digest(t, w.name, w.digest))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("evidence (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Verify = %v, %v; want error %v", got, err, tc.wantErr)
			}
			for _, m := range tc.wantMsg {
				m = strings.ReplaceAll(m, "OTHER", w.other)
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q\ndoes not say %q", err, m)
				}
			}
		})
	}
}

// copySigTag pushes the .sig manifest of from, unchanged, as the .sig
// manifest of to: what an attacker with push access can do without the key.
func copySigTag(t testing.TB, w *world, from, to string) {
	t.Helper()
	w.srv.PushSignatures(t, repo, to, sigTagLayers(t, w, from)...)
}

func TestVerifyRegistryErrors(t *testing.T) {
	priv, pub := registrytest.NewKey(t)
	v, err := signature.NewVerifier(signature.Policy{Key: pub}, nil)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a failing format does not hide a signature in the other", func(t *testing.T) {
		w := newWorld(t, true)
		pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, signPredicate)), signPredicate)
		w.srv.Fail(".sig", http.StatusServiceUnavailable, 0, nil)
		got, err := v.Verify(context.Background(), newFetcher(), registrytest.Digest(t, w.name, w.digest))
		if err != nil || got.Method != "referrer" {
			t.Fatalf("Verify = %+v, %v; want the referrer's evidence", got, err)
		}
	})

	t.Run("a registry error is neither unsigned nor rejected", func(t *testing.T) {
		w := newWorld(t, true)
		w.srv.Fail("/referrers/", http.StatusServiceUnavailable, 0, nil)
		_, err := v.Verify(context.Background(), newFetcher(), registrytest.Digest(t, w.name, w.digest))
		if err == nil || errors.Is(err, signature.ErrUnsigned) || errors.Is(err, signature.ErrRejected) {
			t.Fatalf("Verify error = %v; want a registry error", err)
		}
		if !strings.Contains(err.Error(), "list referrers") || !strings.Contains(err.Error(), w.digest) {
			t.Errorf("error %q does not say what failed for which digest", err)
		}
	})
}
