package signature_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// BenchmarkVerify measures one digest's verification against a local
// registry, requests included: what the gate adds per inspected candidate
// once the Fetcher's cache is cold.
func BenchmarkVerify(b *testing.B) {
	for _, bc := range []struct {
		name string
		sign func(b *testing.B, w *world)
	}{
		{"keyless sig tag", func(b *testing.B, w *world) {
			w.srv.PushSignatures(b, repo, w.digest, registrytest.KeylessSignature(b, w.vs, w.name, w.digest, acmeID, ghIssuer))
		}},
		{"keyless referrer", func(b *testing.B, w *world) {
			pushBundle(b, w.srv, repo, w.digest, keylessBundle(b, w.vs, statement(w.name, w.digest, signPredicate), acmeID, ghIssuer), signPredicate)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := newWorld(b, true)
			bc.sign(b, w)
			v, err := signature.NewVerifier(keylessPolicy(), w.trusted())
			if err != nil {
				b.Fatal(err)
			}
			f := newFetcher()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(b.Context(), f, registrytest.Digest(b, w.name, w.digest)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
