package signature

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
)

// annRFC3161 carries a classic layer's RFC 3161 timestamp (cosign's
// pkg/oci/internal/signature). No signer of ours writes one, so unlike the
// names of format.go it stays unexported.
const annRFC3161 = "dev.sigstore.cosign/rfc3161timestamp"

// rekorBundle is cosign's dev.sigstore.cosign/bundle annotation: a Rekor
// entry with its signed entry timestamp (SET), the inclusion promise.
type rekorBundle struct {
	SignedEntryTimestamp []byte
	Payload              struct {
		Body           string `json:"body"` // base64 of the canonical entry
		IntegratedTime int64  `json:"integratedTime"`
		LogIndex       int64  `json:"logIndex"`
		LogID          string `json:"logID"` // hex
	}
}

// classicBundle turns one classic signature layer into a Sigstore bundle
// v0.1 (message signature, certificate, inclusion promise), the form that
// sigstore-go verifies, as the Sigstore bundle format was designed to carry
// exactly these parts. withLog adds the Rekor entry and timestamp: key
// policies leave them out, so that a key signature never fails on a log
// entry they do not require.
func classicBundle(payload []byte, ann map[string]string, withLog bool) (*bundle.Bundle, error) {
	b64, ok := ann[SignatureAnnotation]
	if !ok {
		return nil, errors.New("layer has no " + SignatureAnnotation + " annotation")
	}
	sig, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("signature annotation is not base64: %w", err)
	}
	digest := sha256.Sum256(payload)
	material := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{}},
	}
	if certPEM := ann[CertificateAnnotation]; certPEM != "" {
		block, _ := pem.Decode([]byte(certPEM))
		if block == nil || block.Type != "CERTIFICATE" {
			return nil, errors.New("certificate annotation is not a PEM certificate")
		}
		// Only the leaf: sigstore-go ignores intermediates from a v0.1 chain
		// and builds the chain from the trusted Fulcio CAs, so the chain
		// annotation is not read.
		material.Content = &protobundle.VerificationMaterial_X509CertificateChain{
			X509CertificateChain: &protocommon.X509CertificateChain{
				Certificates: []*protocommon.X509Certificate{{RawBytes: block.Bytes}},
			},
		}
	}
	if withLog {
		if err := addLog(material, ann); err != nil {
			return nil, err
		}
	}
	pb := &protobundle.Bundle{
		MediaType:            "application/vnd.dev.sigstore.bundle+json;version=0.1",
		VerificationMaterial: material,
		Content: &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: digest[:]},
			Signature:     sig,
		}},
	}
	return bundle.NewBundle(pb)
}

// addLog adds the Rekor entry and RFC 3161 timestamp annotations, when
// present, to material.
func addLog(material *protobundle.VerificationMaterial, ann map[string]string) error {
	if raw := ann[BundleAnnotation]; raw != "" {
		var rb rekorBundle
		if err := json.Unmarshal([]byte(raw), &rb); err != nil {
			return fmt.Errorf("rekor bundle annotation: %w", err)
		}
		body, err := base64.StdEncoding.DecodeString(rb.Payload.Body)
		if err != nil {
			return fmt.Errorf("rekor bundle annotation: body is not base64: %w", err)
		}
		logID, err := hex.DecodeString(rb.Payload.LogID)
		if err != nil {
			return fmt.Errorf("rekor bundle annotation: logID is not hex: %w", err)
		}
		var kind struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := json.Unmarshal(body, &kind); err != nil {
			return fmt.Errorf("rekor bundle annotation: entry body: %w", err)
		}
		material.TlogEntries = []*protorekor.TransparencyLogEntry{{
			LogIndex:          rb.Payload.LogIndex,
			LogId:             &protocommon.LogId{KeyId: logID},
			KindVersion:       &protorekor.KindVersion{Kind: kind.Kind, Version: kind.APIVersion},
			IntegratedTime:    rb.Payload.IntegratedTime,
			InclusionPromise:  &protorekor.InclusionPromise{SignedEntryTimestamp: rb.SignedEntryTimestamp},
			CanonicalizedBody: body,
		}}
	}
	if raw := ann[annRFC3161]; raw != "" {
		var ts struct{ SignedRFC3161Timestamp []byte }
		if err := json.Unmarshal([]byte(raw), &ts); err != nil {
			return fmt.Errorf("rfc3161 timestamp annotation: %w", err)
		}
		material.TimestampVerificationData = &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: ts.SignedRFC3161Timestamp}},
		}
	}
	return nil
}

// simpleSigning is the part of cosign's simple-signing payload that binds
// a signature to an image.
type simpleSigning struct {
	Critical struct {
		Image struct {
			DockerManifestDigest string `json:"docker-manifest-digest"`
		} `json:"image"`
		Type string `json:"type"`
	} `json:"critical"`
}

// signedDigest returns the image digest a simple-signing payload signs.
func signedDigest(payload []byte) (string, error) {
	var p simpleSigning
	if err := json.Unmarshal(payload, &p); err != nil {
		return "", fmt.Errorf("payload is not simple-signing JSON: %w", err)
	}
	if p.Critical.Image.DockerManifestDigest == "" {
		return "", errors.New("payload names no critical.image.docker-manifest-digest")
	}
	return p.Critical.Image.DockerManifestDigest, nil
}
