package signature

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// What cosign writes for `cosign sign --new-bundle-format` (cosign's
// pkg/oci/remote WriteAttestationNewBundleFormat).
const (
	bundleTypePrefix  = "application/vnd.dev.sigstore.bundle"
	annPredicateType  = "dev.sigstore.bundle.predicateType"
	signPredicateType = "https://sigstore.dev/cosign/sign/v1"
)

// referrersTag is the referrers tag schema's tag for digest.
func referrersTag(digest v1.Hash) string { return digest.Algorithm + "-" + digest.Hex }

// fromReferrers looks for an acceptable Sigstore bundle among the
// referrers of digest: one referrers GET (plus the fallback tag's manifest
// GET without the API), then a manifest and a blob GET per bundle
// examined.
func (v *Verifier) fromReferrers(ctx context.Context, f Fetcher, repo name.Repository, digest v1.Hash, rs *results) error {
	body, err := f.Referrers(ctx, repo.Digest(digest.String()), BundleMediaType)
	if errors.Is(err, ErrNoReferrersAPI) {
		tag := referrersTag(digest)
		body, _, err = f.Manifest(ctx, repo.Tag(tag))
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("fetch referrers tag %s: %w", tag, err)
		}
	} else if err != nil {
		return fmt.Errorf("list referrers: %w", err)
	}
	idx, err := v1.ParseIndexManifest(bytes.NewReader(body))
	if err != nil {
		rs.reject(MethodReferrer, "referrers index is not an image index: %v", err)
		return nil
	}
	examined := 0
	for _, d := range idx.Manifests {
		if !isSignatureReferrer(d) {
			continue
		}
		if examined == maxSignatures {
			rs.reject(MethodReferrer, "more than %d signature referrers; the rest were not examined", maxSignatures)
			break
		}
		examined++
		if err := v.checkReferrer(ctx, f, repo, digest, d, rs); err != nil {
			return err
		}
		if rs.accepted != nil {
			return nil
		}
	}
	return nil
}

// isSignatureReferrer tells from the referrers index alone whether d may
// be a cosign signature bundle, so that other artifacts cost no request.
func isSignatureReferrer(d v1.Descriptor) bool {
	pt, annotated := d.Annotations[annPredicateType]
	if annotated && pt != signPredicateType {
		return false // an attestation (SBOM, provenance), not a signature
	}
	// Some registries (go-containerregistry's pkg/registry among them)
	// report the config media type, the empty descriptor's for cosign, as
	// artifactType; cosign's manifest annotation still says what it is.
	return strings.HasPrefix(d.ArtifactType, bundleTypePrefix) || annotated
}

// checkReferrer checks the Sigstore bundle in one referrer manifest.
func (v *Verifier) checkReferrer(ctx context.Context, f Fetcher, repo name.Repository, digest v1.Hash, d v1.Descriptor, rs *results) error {
	body, _, err := f.Manifest(ctx, repo.Digest(d.Digest.String()))
	if errors.Is(err, ErrNotFound) {
		return nil // listed but deleted since: as if not listed
	}
	if err != nil {
		return fmt.Errorf("fetch referrer %s: %w", d.Digest, err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(body))
	if err != nil {
		rs.reject(MethodReferrer, "manifest %s is not an image manifest: %v", d.Digest, err)
		return nil
	}
	var layer *v1.Descriptor
	for i, l := range m.Layers {
		if strings.HasPrefix(string(l.MediaType), bundleTypePrefix) {
			layer = &m.Layers[i]
			break
		}
	}
	if layer == nil {
		rs.reject(MethodReferrer, "manifest %s has no Sigstore bundle layer", d.Digest)
		return nil
	}
	raw, err := fetchBlob(ctx, f, repo, *layer, maxPayload)
	var bad *badBlobError
	switch {
	case errors.Is(err, ErrNotFound):
		rs.reject(MethodReferrer, "bundle blob %s is missing", layer.Digest)
		return nil
	case errors.As(err, &bad):
		rs.reject(MethodReferrer, "%v", err)
		return nil
	case err != nil:
		return err
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		rs.reject(MethodReferrer, "bundle %s: %v", layer.Digest, err)
		return nil
	}
	// The manifest's subject is only the registry's word; what binds the
	// bundle to this digest is the signed content (the in-toto subject, or
	// the message digest), which sigstore-go compares with the digest. It
	// is looked at first only to say plainly that a bundle was replayed.
	if names := signedDigests(&b); len(names) > 0 && !slices.Contains(names, digest.String()) {
		rs.reject(MethodReferrer, "signature is for %s, not this digest (copied from another image?)", strings.Join(names, ", "))
		return nil
	}
	sum, err := hex.DecodeString(digest.Hex)
	if err != nil {
		return fmt.Errorf("digest %s: %w", digest, err)
	}
	rs.add(v.check(MethodReferrer, &b, verify.WithArtifactDigest(digest.Algorithm, sum)))
	return nil
}

// signedDigests returns the digests ("sha256:<hex>") a bundle's signed
// content names, unverified; none when it cannot tell.
func signedDigests(b *bundle.Bundle) []string {
	sc, err := b.SignatureContent()
	if err != nil {
		return nil
	}
	if m := sc.MessageSignatureContent(); m != nil {
		if m.DigestAlgorithm() != "SHA2_256" {
			return nil
		}
		return []string{"sha256:" + hex.EncodeToString(m.Digest())}
	}
	env := sc.EnvelopeContent()
	if env == nil {
		return nil
	}
	st, err := env.Statement()
	if err != nil {
		return nil
	}
	var names []string
	for _, s := range st.GetSubject() {
		if h, ok := s.GetDigest()["sha256"]; ok {
			names = append(names, "sha256:"+strings.ToLower(h))
		}
	}
	return names
}
