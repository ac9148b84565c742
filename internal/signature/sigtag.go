package signature

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// fromSigTag looks for an acceptable signature in the classic .sig
// manifest: one manifest GET, then one blob GET per layer examined. No
// such manifest adds nothing to rs.
func (v *Verifier) fromSigTag(ctx context.Context, f Fetcher, repo name.Repository, digest v1.Hash, rs *results) error {
	tag := SigTag(digest)
	body, _, err := f.Manifest(ctx, repo.Tag(tag))
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fetch signature manifest %s: %w", tag, err)
	}
	m, err := v1.ParseManifest(bytes.NewReader(body))
	if err != nil {
		rs.reject(MethodSigTag, "manifest %s is not an image manifest: %v", tag, err)
		return nil
	}
	examined := 0
	for _, l := range m.Layers {
		if string(l.MediaType) != SimpleSigningMediaType {
			continue
		}
		if examined == maxSignatures {
			rs.reject(MethodSigTag, "%s has more than %d signatures; the rest were not examined", tag, maxSignatures)
			break
		}
		examined++
		if err := v.checkLayer(ctx, f, repo, digest, l, rs); err != nil {
			return err
		}
		if rs.accepted != nil {
			return nil
		}
	}
	if examined == 0 {
		rs.reject(MethodSigTag, "%s has no %s layer", tag, SimpleSigningMediaType)
	}
	return nil
}

// checkLayer checks one signature layer of the .sig manifest.
func (v *Verifier) checkLayer(ctx context.Context, f Fetcher, repo name.Repository, digest v1.Hash, l v1.Descriptor, rs *results) error {
	payload, err := fetchBlob(ctx, f, repo, l, maxPayload)
	if errors.Is(err, ErrNotFound) {
		rs.reject(MethodSigTag, "payload blob %s is missing", l.Digest)
		return nil
	}
	var bad *badBlobError
	if errors.As(err, &bad) {
		rs.reject(MethodSigTag, "%v", err)
		return nil
	}
	if err != nil {
		return err
	}
	// Replay guard: a signature copied from another image's .sig tag is
	// genuine but names that image's digest.
	signed, err := signedDigest(payload)
	if err != nil {
		rs.reject(MethodSigTag, "%v", err)
		return nil
	}
	if !strings.EqualFold(signed, digest.String()) {
		rs.reject(MethodSigTag, "signature is for %s, not this digest (copied from another image?)", signed)
		return nil
	}
	entity, err := classicBundle(payload, l.Annotations, v.identity != nil)
	if err != nil {
		rs.reject(MethodSigTag, "%v", err)
		return nil
	}
	rs.add(v.check(MethodSigTag, entity, verify.WithArtifact(bytes.NewReader(payload))))
	return nil
}
