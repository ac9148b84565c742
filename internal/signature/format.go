package signature

import v1 "github.com/google/go-containerregistry/pkg/v1"

// The names cosign stores signatures under (sigstore/cosign's
// pkg/oci/static, pkg/oci/internal/signature and pkg/oci/remote), as
// Verify looks for them. They are exported so that what signs images for
// the tests (registrytest) and for the demo (fixtures) writes exactly
// these, not copies that could drift from them.
const (
	// SimpleSigningMediaType is the media type of each layer of the classic
	// "sha256-<hex>.sig" manifest: the simple-signing payload signed.
	SimpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	// SignatureAnnotation carries a classic layer's base64 signature.
	SignatureAnnotation = "dev.cosignproject.cosign/signature"
	// CertificateAnnotation carries a keyless signer's PEM certificate.
	CertificateAnnotation = "dev.sigstore.cosign/certificate"
	// BundleAnnotation carries a keyless signature's Rekor entry and its
	// signed entry timestamp.
	BundleAnnotation = "dev.sigstore.cosign/bundle"
	// BundleMediaType is the artifact type of a Sigstore bundle referrer,
	// what `cosign sign --new-bundle-format` attaches.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
)

// SigTag is the tag of digest's classic signature manifest, in the image's
// own repository: "sha256-<hex>.sig", as cosign's pkg/oci/remote names it.
// It only names the tag, so the demo's signing and the tests' share it with
// Verify without linking any signing code here.
func SigTag(digest v1.Hash) string { return digest.Algorithm + "-" + digest.Hex + ".sig" }
