package signature_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// requests counts what a Verify sent, by kind.
type requests struct{ Manifests, Blobs, Referrers int }

func count(srv *registrytest.Server) requests {
	return requests{
		Manifests: srv.Count("", "/manifests/"),
		Blobs:     srv.Count("", "/blobs/"),
		Referrers: srv.Count("", "/referrers/"),
	}
}

// TestVerifyCost pins the requests per verified digest that the package
// documentation promises.
func TestVerifyCost(t *testing.T) {
	priv, pub := registrytest.NewKey(t)
	v, err := signature.NewVerifier(signature.Policy{Key: pub}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bundle := func(t *testing.T, w *world) {
		pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, signPredicate)), signPredicate)
	}
	tests := []struct {
		name         string
		referrersAPI bool
		sign         func(t *testing.T, w *world)
		want         requests
	}{
		{"sig tag", false, func(t *testing.T, w *world) { w.srv.SignWithKey(t, repo, w.digest, priv) }, requests{Manifests: 1, Blobs: 1}},
		{"referrers API", true, bundle, requests{Manifests: 2, Blobs: 1, Referrers: 1}},
		{"referrers tag schema", false, bundle, requests{Manifests: 3, Blobs: 1, Referrers: 1}},
		{"unsigned, referrers API", true, func(*testing.T, *world) {}, requests{Manifests: 1, Referrers: 1}},
		{"unsigned, no referrers API", false, func(*testing.T, *world) {}, requests{Manifests: 2, Referrers: 1}},
		{
			name:         "attestations cost nothing",
			referrersAPI: true,
			sign: func(t *testing.T, w *world) {
				for _, p := range []string{slsaPredicate, "https://spdx.dev/Document", "https://cosign.sigstore.dev/attestation/vuln/v1"} {
					pushBundle(t, w.srv, repo, w.digest, keyBundle(t, priv, statement(w.name, w.digest, p)), p)
				}
			},
			want: requests{Manifests: 1, Referrers: 1},
		},
		{
			name: "an oversized signature is not fetched",
			sign: func(t *testing.T, w *world) {
				w.srv.PushSignatures(t, repo, w.digest, registrytest.CosignSignature{Payload: make([]byte, 300<<10)})
			},
			want: requests{Manifests: 2, Referrers: 1},
		},
		{
			name: "at most 5 signatures examined",
			sign: func(t *testing.T, w *world) {
				rogue, _ := registrytest.NewKey(t)
				var sigs []registrytest.CosignSignature
				for range 8 {
					w.srv.SignWithKey(t, repo, w.digest, rogue)
					sigs = append(sigs, sigTagLayers(t, w, w.digest)...)
				}
				w.srv.PushSignatures(t, repo, w.digest, sigs...)
			},
			want: requests{Manifests: 2, Blobs: 5, Referrers: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, tc.referrersAPI)
			tc.sign(t, w)
			w.srv.Reset()
			_, _ = v.Verify(context.Background(), newFetcher(), registrytest.Digest(t, w.name, w.digest))
			if diff := cmp.Diff(tc.want, count(w.srv)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// sigTagLayers reads back the signatures of digest's .sig manifest.
func sigTagLayers(t testing.TB, w *world, digest string) []registrytest.CosignSignature {
	t.Helper()
	f := newFetcher()
	body, _, err := f.Manifest(context.Background(), registrytest.Tag(t, w.name, registrytest.SigTag(digest)))
	if err != nil {
		t.Fatal(err)
	}
	var sigs []registrytest.CosignSignature
	for _, l := range mustManifest(t, body).Layers {
		payload, err := f.Blob(context.Background(), registrytest.Digest(t, w.name, l.Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, registrytest.CosignSignature{Payload: payload, Annotations: l.Annotations})
	}
	return sigs
}
