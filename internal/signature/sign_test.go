package signature_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// Signing as cosign does, offline: a generated key, or sigstore-go's
// VirtualSigstore (a Fulcio CA, a Rekor log and a TSA in memory) for
// keyless signatures. What is pushed is byte-for-byte cosign's format.

const (
	signPredicate = "https://sigstore.dev/cosign/sign/v1"
	slsaPredicate = "https://slsa.dev/provenance/v1"
)

func newSigstore(t testing.TB) *ca.VirtualSigstore {
	t.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// setFor is the Rekor signed entry timestamp of tle; VirtualSigstore
// makes one for each entry but keeps it to itself.
func setFor(t testing.TB, vs *ca.VirtualSigstore, tle *protorekor.TransparencyLogEntry) []byte {
	t.Helper()
	set, err := vs.RekorSignPayload(registrytest.RekorPayload(tle))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// statement is the in-toto statement `cosign sign --new-bundle-format`
// signs: the image digest as subject, predicate type cosign/sign/v1.
func statement(dockerRef, digest, predicateType string) []byte {
	alg, hexDigest, _ := strings.Cut(digest, ":")
	b, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": dockerRef, "digest": map[string]string{alg: hexDigest}}},
		"predicateType": predicateType,
		"predicate":     map[string]any{},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// keylessBundle is the Sigstore bundle v0.3 of a keyless DSSE signature
// over stmt: certificate, Rekor v1 dsse entry with inclusion proof and
// SET, and an RFC 3161 timestamp.
func keylessBundle(t testing.TB, vs *ca.VirtualSigstore, stmt []byte, identity, issuer string) []byte {
	t.Helper()
	// Attest's timing: within the leaf certificate's ten minutes.
	ent, err := vs.AttestAtTime(identity, issuer, stmt, time.Now().Add(5*time.Minute), true)
	if err != nil {
		t.Fatal(err)
	}
	return entityBundle(t, vs, ent, true)
}

// keylessBundleRekorV2 is keylessBundle as Sigstore makes it since Rekor
// v2: a hashedrekord v0.0.2 entry with an inclusion proof but neither SET
// nor integrated time, so the RFC 3161 timestamp is the only observer.
func keylessBundleRekorV2(t testing.TB, vs *ca.VirtualSigstore, stmt []byte, identity, issuer string) []byte {
	t.Helper()
	ent, err := vs.AttestHashedRekordV2(identity, issuer, stmt)
	if err != nil {
		t.Fatal(err)
	}
	return entityBundle(t, vs, ent, false)
}

func entityBundle(t testing.TB, vs *ca.VirtualSigstore, ent *ca.TestEntity, rekorV1 bool) []byte {
	t.Helper()
	sc, err := ent.SignatureContent()
	if err != nil {
		t.Fatal(err)
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ent.TlogEntries()
	if err != nil {
		t.Fatal(err)
	}
	tle := entries[0].TransparencyLogEntry()
	if rekorV1 {
		tle.KindVersion = kindVersion(t, tle.CanonicalizedBody)
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: setFor(t, vs, tle)}
	} else {
		tle.IntegratedTime = 0
	}
	tss, err := ent.Timestamps()
	if err != nil {
		t.Fatal(err)
	}
	material := &protobundle.VerificationMaterial{
		Content:     &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: vc.Certificate().Raw}},
		TlogEntries: []*protorekor.TransparencyLogEntry{tle},
		TimestampVerificationData: &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: tss[0]}},
		},
	}
	return marshalBundle(t, material, sc.EnvelopeContent().RawEnvelope())
}

// keyBundle is the Sigstore bundle v0.3 of a DSSE signature over stmt made
// with priv, without a log entry (`--tlog-upload=false`).
func keyBundle(t testing.TB, priv *ecdsa.PrivateKey, stmt []byte) []byte {
	t.Helper()
	signer, err := sigsig.LoadECDSASigner(priv, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	es, err := dsse.NewEnvelopeSigner(&sigdsse.SignerAdapter{SignatureSigner: signer, Pub: priv.Public()})
	if err != nil {
		t.Fatal(err)
	}
	env, err := es.SignPayload(context.Background(), "application/vnd.in-toto+json", stmt)
	if err != nil {
		t.Fatal(err)
	}
	material := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}},
	}
	return marshalBundle(t, material, env)
}

func marshalBundle(t testing.TB, material *protobundle.VerificationMaterial, env *dsse.Envelope) []byte {
	t.Helper()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	pe := &protodsse.Envelope{Payload: payload, PayloadType: env.PayloadType}
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil {
			t.Fatal(err)
		}
		pe.Signatures = append(pe.Signatures, &protodsse.Signature{Sig: sig, Keyid: s.KeyID})
	}
	b, err := protojson.Marshal(&protobundle.Bundle{
		MediaType:            signature.BundleMediaType,
		VerificationMaterial: material,
		Content:              &protobundle.Bundle_DsseEnvelope{DsseEnvelope: pe},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func kindVersion(t testing.TB, body []byte) *protorekor.KindVersion {
	t.Helper()
	var kv struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(body, &kv); err != nil {
		t.Fatal(err)
	}
	return &protorekor.KindVersion{Kind: kv.Kind, Version: kv.APIVersion}
}

// pushBundle attaches bundle to digest as a referrer, with cosign's
// annotations.
func pushBundle(t testing.TB, srv *registrytest.Server, repo, digest string, bundle []byte, predicateType string) string {
	t.Helper()
	return srv.PushReferrer(t, repo, digest, signature.BundleMediaType, bundle, signature.BundleMediaType, map[string]string{
		"dev.sigstore.bundle.content":       "dsse-envelope",
		"dev.sigstore.bundle.predicateType": predicateType,
	})
}
