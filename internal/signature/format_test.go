package signature_test

import (
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/imagebot/imagebot/internal/signature"
)

// TestFormatNames pins the names of format.go to cosign's spelling. The
// test signers (registrytest, fixtures) write these same constants, so a
// name changed here would still verify against them: only this test
// would see that real cosign signatures are no longer found.
func TestFormatNames(t *testing.T) {
	bundleType, err := bundle.MediaTypeString("0.3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, got, want string }{
		// cosign's pkg/types.SimpleSigningMediaType.
		{"SimpleSigningMediaType", signature.SimpleSigningMediaType, "application/vnd.dev.cosign.simplesigning.v1+json"},
		// cosign's pkg/oci/static SignatureAnnotationKey,
		// CertificateAnnotationKey and BundleAnnotationKey.
		{"SignatureAnnotation", signature.SignatureAnnotation, "dev.cosignproject.cosign/signature"},
		{"CertificateAnnotation", signature.CertificateAnnotation, "dev.sigstore.cosign/certificate"},
		{"BundleAnnotation", signature.BundleAnnotation, "dev.sigstore.cosign/bundle"},
		// What cosign v3 attaches, in sigstore-go's own words.
		{"BundleMediaType", signature.BundleMediaType, bundleType},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, cosign writes %q", tc.name, tc.got, tc.want)
		}
	}
}
