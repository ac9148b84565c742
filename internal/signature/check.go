package signature

import (
	"crypto/x509"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// check verifies one signature (classic or bundle, as a sigstore-go signed
// entity) over the artifact and against the policy. It returns the
// evidence of an accepted signature, or why it is not accepted.
func (v *Verifier) check(method string, entity verify.SignedEntity, artifact verify.ArtifactPolicyOption) (Evidence, *Rejection) {
	reject := func(format string, args ...any) (Evidence, *Rejection) {
		return Evidence{}, &Rejection{Evidence: Evidence{Method: method}, Reason: fmt.Sprintf(format, args...)}
	}
	content, err := entity.VerificationContent()
	if err != nil {
		return reject("unreadable verification material: %v", err)
	}
	cert := content.Certificate()

	if v.identity == nil { // key policy
		if cert != nil {
			return reject("signed with a certificate%s, not with a key", claimed(cert))
		}
		if _, err := v.sigstore.Verify(entity, verify.NewPolicy(artifact, verify.WithKey())); err != nil {
			return reject("does not verify with the policy's key (signed with another key?): %v", err)
		}
		return Evidence{Method: method, Signer: v.keyID}, nil
	}

	if cert == nil {
		return reject("signed with a key, not with a certificate")
	}
	// The identity is checked below, after sigstore-go has verified the
	// chain, the log entry and the timestamps, so that a mismatch can name
	// the real signer.
	res, err := v.sigstore.Verify(entity, verify.NewPolicy(artifact, verify.WithoutIdentitiesUnsafe()))
	if err != nil {
		return reject("certificate%s does not verify: %v", claimed(cert), err)
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		return reject("verified without a certificate summary")
	}
	sum := *res.Signature.Certificate
	got := Evidence{Method: method, Signer: sum.SubjectAlternativeName, Issuer: sum.Issuer}
	if err := v.identity.Verify(sum); err != nil {
		return Evidence{}, &Rejection{Evidence: got, Reason: "not the identity and issuer wanted"}
	}
	return got, nil
}

// claimed quotes the identity a certificate claims, for a message about a
// certificate that is not (or not yet) verified.
func claimed(cert *x509.Certificate) string {
	sum, err := certificate.SummarizeCertificate(cert)
	if err != nil || sum.SubjectAlternativeName == "" {
		return ""
	}
	if sum.Issuer == "" {
		return " for " + sum.SubjectAlternativeName
	}
	return fmt.Sprintf(" for %s (issuer %s)", sum.SubjectAlternativeName, sum.Issuer)
}
