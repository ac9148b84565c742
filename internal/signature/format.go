package signature

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
