package gate

import (
	"errors"
	"fmt"
)

// Signer is what an accepted signature proves: how it was found (Method:
// "sig-tag" for cosign's sha256-<hex>.sig tag, "referrer" for an OCI 1.1
// referrer holding a Sigstore bundle) and who signed: the certificate
// identity and its OIDC issuer (keyless), or "key SHA256:<hex>", the
// fingerprint of the public key.
type Signer struct {
	Method string `json:"method"`
	Signer string `json:"signer"`
	Issuer string `json:"issuer,omitempty"`
}

var (
	// ErrUnsigned is wrapped by an Inspector's Verify when the digest
	// carries no signature at all.
	ErrUnsigned = errors.New("unsigned")
	// ErrRejected is wrapped by an Inspector's Verify when the digest
	// carries signatures, none by the signer the policy trusts.
	ErrRejected = errors.New("signature not accepted")
)

// CheckSignature is the signature gate over what Verify returned. A
// missing or unacceptable signature holds the candidate (the returned
// reason says which); any other error means the registry could not be
// read, so the candidate is neither held nor passed and the error is
// returned for the caller to report.
func CheckSignature(verr error) (string, error) {
	switch {
	case verr == nil:
		return "", nil
	case errors.Is(verr, ErrUnsigned):
		return "not signed (no cosign signature tag or referrer)", nil
	case errors.Is(verr, ErrRejected):
		return fmt.Sprintf("signature not accepted: %v", unwrapReason(verr)), nil
	}
	return "", verr
}

// unwrapReason drops ErrRejected's own words from the front of err, which
// the held reason already says.
func unwrapReason(err error) string {
	s := err.Error()
	prefix := ErrRejected.Error() + ": "
	for len(s) > len(prefix) && s[:len(prefix)] == prefix {
		s = s[len(prefix):]
	}
	return s
}
