package signature

import (
	"errors"
	"fmt"
	"strings"
)

// Where a signature was found.
const (
	MethodSigTag   = "sig-tag"  // the classic sha256-<hex>.sig tag
	MethodReferrer = "referrer" // an OCI 1.1 referrer holding a Sigstore bundle
)

// Evidence is what an accepted signature proves, for the PR body.
type Evidence struct {
	Method string // MethodSigTag or MethodReferrer
	// Signer is the certificate identity (a workflow URI or an email) of a
	// keyless signature, or "key SHA256:<hex>" (the SHA-256 of the public
	// key's DER form) of a key signature.
	Signer string
	Issuer string // OIDC issuer of a keyless signature, "" for a key
}

func (e Evidence) String() string {
	if e.Issuer == "" {
		return fmt.Sprintf("signed by %s (%s)", e.Signer, e.Method)
	}
	return fmt.Sprintf("signed by %s, issuer %s (%s)", e.Signer, e.Issuer, e.Method)
}

var (
	// ErrUnsigned means the digest carries no cosign signature in either
	// format. Errors of Verify wrap it with the places searched.
	ErrUnsigned = errors.New("no signature")
	// ErrRejected means the digest carries signatures but none satisfies
	// the policy: invalid, for another digest, or by another signer.
	// Errors of Verify that wrap it are a *RejectedError.
	ErrRejected = errors.New("no acceptable signature")
)

// Rejection is one signature found and not accepted. Signer and Issuer are
// set only when the signature verified cryptographically, so a name shown
// is one that really signed; a claim that did not verify is only quoted in
// Reason.
type Rejection struct {
	Evidence
	Reason string
}

func (r Rejection) String() string {
	switch {
	case r.Signer != "" && r.Issuer != "":
		return fmt.Sprintf("%s signed by %s (issuer %s): %s", r.Method, r.Signer, r.Issuer, r.Reason)
	case r.Signer != "":
		return fmt.Sprintf("%s signed by %s: %s", r.Method, r.Signer, r.Reason)
	}
	return fmt.Sprintf("%s: %s", r.Method, r.Reason)
}

// RejectedError lists the signatures found on a digest and why none was
// accepted, against what the policy wants.
type RejectedError struct {
	Want       string // "identity <regexp> issuer <issuer>" or "key SHA256:<hex>"
	Rejections []Rejection
}

func (e *RejectedError) Error() string { return ErrRejected.Error() + ": " + e.Reasons() }

// Reasons is the error without ErrRejected's words: each signature found
// and why it was refused, then what the policy wants.
func (e *RejectedError) Reasons() string {
	parts := make([]string, len(e.Rejections))
	for i, r := range e.Rejections {
		parts[i] = r.String()
	}
	return fmt.Sprintf("%s; want %s", strings.Join(parts, "; "), e.Want)
}

// Is makes errors.Is(err, ErrRejected) hold.
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }
