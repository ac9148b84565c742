package signature_test

import (
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/imagebot/imagebot/internal/signature"
)

// TestFormatNames pins the names of format.go to cosign's spelling. The
// test signers (registrytest, fixtures) write these same names, so a
// name changed here would still verify against them: only this test
// would see that real cosign signatures are no longer found.
func TestFormatNames(t *testing.T) {
	bundleType, err := bundle.MediaTypeString("0.3")
	if err != nil {
		t.Fatal(err)
	}
	const hex = "b5b2b2c507a0944348e0303114d8d93aaaa081732b86451d9bce1f432a537bc7"
	digest, err := v1.NewHash("sha256:" + hex)
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
		// cosign's pkg/oci/remote suffixTag with SignatureTagSuffix.
		{"SigTag", signature.SigTag(digest), "sha256-" + hex + ".sig"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, cosign writes %q", tc.name, tc.got, tc.want)
		}
	}
}
