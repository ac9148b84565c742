package signature

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
)

// Policy says whose signature a digest must carry: either Key, or
// Identity and Issuer (keyless).
type Policy struct {
	// Key is a PEM public key (cosign.pub: ECDSA, RSA or Ed25519).
	// Signatures checked with a key need no transparency log entry, as
	// `cosign sign --key --tlog-upload=false` makes for private images.
	Key []byte
	// Identity matches the certificate's subject alternative name (a
	// workflow URI, an email). Like cosign's --certificate-identity-regexp
	// it is unanchored: write ^...$ to match the whole identity.
	Identity *regexp.Regexp
	// Issuer is the OIDC issuer the certificate must name, exactly
	// ("https://token.actions.githubusercontent.com").
	Issuer string
}

// Verifier checks digests against one Policy. It is safe for concurrent
// use.
type Verifier struct {
	want     string // what the policy wants, for messages
	keyID    string // "key SHA256:<hex>", key policies only
	identity *verify.CertificateIdentity
	sigstore *verify.Verifier
}

// NewVerifier validates p and prepares its checks. Keyless policies need
// trusted (Fulcio roots, Rekor and CT log keys, TSAs: TrustedRoot in
// production, sigstore-go's VirtualSigstore in tests); key policies ignore
// it. A keyless signature must have a verified Rekor entry and an observer
// timestamp (Rekor's integrated time or an RFC 3161 timestamp), and an SCT
// when trusted lists CT logs, as `cosign verify` requires.
func NewVerifier(p Policy, trusted root.TrustedMaterial) (*Verifier, error) {
	keyless := p.Identity != nil || p.Issuer != ""
	switch {
	case len(p.Key) > 0 && keyless:
		return nil, errors.New("signature policy: key and identity/issuer are exclusive: a key policy trusts only the key holder")
	case len(p.Key) > 0:
		return newKeyVerifier(p.Key)
	case p.Identity == nil || p.Identity.String() == "":
		return nil, errors.New("signature policy: identity is required with issuer (a regexp such as ^https://github.com/acme/), or give a key")
	case p.Issuer == "":
		return nil, errors.New("signature policy: issuer is required with identity (such as https://token.actions.githubusercontent.com): without it any OIDC provider could vouch for the identity")
	case trusted == nil:
		return nil, errors.New("signature policy: keyless verification needs Sigstore trusted material")
	}
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
	// Fulcio embeds SCTs in every certificate; a trust root without CT logs
	// (a private deployment) could never verify one.
	if len(trusted.CTLogs()) > 0 {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	sv, err := verify.NewVerifier(trusted, opts...)
	if err != nil {
		return nil, fmt.Errorf("signature policy: %w", err)
	}
	id := &verify.CertificateIdentity{
		SubjectAlternativeName: verify.SubjectAlternativeNameMatcher{Regexp: *p.Identity},
		Issuer:                 verify.IssuerMatcher{Issuer: p.Issuer},
	}
	return &Verifier{
		want:     fmt.Sprintf("identity %s issuer %s", p.Identity, p.Issuer),
		identity: id,
		sigstore: sv,
	}, nil
}

func newKeyVerifier(pemKey []byte) (*Verifier, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemKey)
	if err != nil {
		return nil, fmt.Errorf("signature policy: key is not a PEM public key (want the cosign.pub that `cosign generate-key-pair` writes): %w", err)
	}
	// cosign signs with SHA-256 whatever the key (LoadPublicKeyRaw).
	sv, err := sigsig.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("signature policy: key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("signature policy: key: %w", err)
	}
	sum := sha256.Sum256(der)
	// A key has no validity window: zero times never expire.
	key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
	material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
	v, err := verify.NewVerifier(material, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, fmt.Errorf("signature policy: %w", err)
	}
	keyID := "key SHA256:" + hex.EncodeToString(sum[:])
	return &Verifier{want: keyID, keyID: keyID, sigstore: v}, nil
}
