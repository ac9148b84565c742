package registrytest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/imagebot/imagebot/internal/signature"
)

// SignKeyless signs digest in repo as `cosign sign` does keyless, with
// sigstore-go's VirtualSigstore standing in for Fulcio and Rekor: a
// certificate for identity from issuer, a Rekor entry and its signed
// timestamp, pushed with PushSignatures. Verify it against vs as trusted
// material.
func (s *Server) SignKeyless(t testing.TB, repo, digest string, vs *ca.VirtualSigstore, identity, issuer string) string {
	t.Helper()
	return s.PushSignatures(t, repo, digest, KeylessSignature(t, vs, s.Host()+"/"+repo, digest, identity, issuer))
}

// KeylessSignature makes the classic .sig layer of a keyless signature of
// digest for the image dockerRef ("host/repo").
func KeylessSignature(t testing.TB, vs *ca.VirtualSigstore, dockerRef, digest, identity, issuer string) CosignSignature {
	t.Helper()
	payload := SimpleSigningPayload(dockerRef, digest)
	ent, err := vs.Sign(identity, issuer, payload)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, err := cryptoutils.MarshalCertificateToPEM(vc.Certificate())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ent.TlogEntries()
	if err != nil {
		t.Fatal(err)
	}
	payloadOf := RekorPayload(entries[0].TransparencyLogEntry())
	// VirtualSigstore makes a signed entry timestamp for each entry but
	// keeps it to itself: sign the same payload again.
	set, err := vs.RekorSignPayload(payloadOf)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := json.Marshal(map[string]any{"SignedEntryTimestamp": set, "Payload": payloadOf})
	if err != nil {
		t.Fatal(err)
	}
	return CosignSignature{Payload: payload, Annotations: map[string]string{
		signature.SignatureAnnotation:   base64.StdEncoding.EncodeToString(sc.Signature()),
		signature.CertificateAnnotation: string(certPEM),
		signature.BundleAnnotation:      string(rb),
	}}
}

// RekorPayload is what Rekor's signed entry timestamp of tle signs, and
// what a cosign bundle annotation carries beside it.
func RekorPayload(tle *protorekor.TransparencyLogEntry) tlog.RekorPayload {
	return tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	}
}
