package signature_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

func TestNewVerifierRejectsBadPolicies(t *testing.T) {
	_, pub := registrytest.NewKey(t)
	vs := newSigstore(t)
	id := regexp.MustCompile(`^https://github\\.com/acme/`)
	tests := []struct {
		name    string
		policy  signature.Policy
		noTrust bool
		wantMsg string
	}{
		{name: "nothing", policy: signature.Policy{}, wantMsg: "identity is required"},
		{name: "key and identity", policy: signature.Policy{Key: pub, Identity: id, Issuer: ghIssuer}, wantMsg: "exclusive"},
		{name: "identity without issuer", policy: signature.Policy{Identity: id}, wantMsg: "issuer is required"},
		{name: "issuer without identity", policy: signature.Policy{Issuer: ghIssuer}, wantMsg: "identity is required"},
		{name: "empty identity", policy: signature.Policy{Identity: regexp.MustCompile(``), Issuer: ghIssuer}, wantMsg: "identity is required"},
		{name: "key not PEM", policy: signature.Policy{Key: []byte("ssh-ed25519 AAAA")}, wantMsg: "key is not a PEM public key"},
		{name: "keyless without trusted material", policy: signature.Policy{Identity: id, Issuer: ghIssuer}, noTrust: true, wantMsg: "needs Sigstore trusted material"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.noTrust {
				_, err = signature.NewVerifier(tc.policy, nil)
			} else {
				_, err = signature.NewVerifier(tc.policy, vs)
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("NewVerifier error = %v; want one saying %q", err, tc.wantMsg)
			}
		})
	}
}

// Fulcio embeds an SCT in every certificate, so a trust root with CT logs
// (the public-good one) must have it checked; VirtualSigstore lists a CT
// log but issues certificates without SCTs.
func TestKeylessNeedsSCTWhenTrustRootHasCTLogs(t *testing.T) {
	w := newWorld(t, false)
	w.srv.PushSignatures(t, repo, w.digest, registrytest.KeylessSignature(t, w.vs, w.name, w.digest, acmeID, ghIssuer))
	v, err := signature.NewVerifier(keylessPolicy(), w.vs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(t.Context(), newFetcher(), registrytest.Digest(t, w.name, w.digest))
	if !errors.Is(err, signature.ErrRejected) || !strings.Contains(err.Error(), "signed certificate timestamp") {
		t.Fatalf("Verify error = %v; want a rejection for the missing SCT", err)
	}
}
