package signature

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Bounds on what one digest's check reads, whatever the registry holds.
const (
	// maxSignatures is how many signatures of each format are examined.
	maxSignatures = 5
	// maxPayload caps a simple-signing payload or a Sigstore bundle: real
	// ones are a few kilobytes (a certificate, an entry, an inclusion proof).
	maxPayload = 256 << 10
)

// Verify checks that the image ref names ("...@sha256:<hex>") carries a
// signature the policy accepts, first in the classic .sig tag, then among the
// digest's OCI 1.1 referrers. The error wraps ErrUnsigned when there is no
// signature at all, is a *RejectedError (errors.Is ErrRejected) when
// there are signatures but none acceptable, and is any other error when
// the registry could not be read: then the digest is neither known to be
// signed nor unsigned.
func (v *Verifier) Verify(ctx context.Context, f Fetcher, ref name.Digest) (Evidence, error) {
	repo, digest := ref.Context(), ref.DigestStr()
	h, err := v1.NewHash(digest)
	if err != nil {
		return Evidence{}, fmt.Errorf("verify signature of %s@%s: %w", imagename.String(repo), digest, err)
	}
	var rs results
	var errs []error
	// A registry error in one format does not hide a valid signature in
	// the other; it only forbids concluding "unsigned" or "rejected".
	if err := v.fromSigTag(ctx, f, repo, h, &rs); err != nil {
		errs = append(errs, err)
	}
	if rs.accepted == nil {
		if err := v.fromReferrers(ctx, f, repo, h, &rs); err != nil {
			errs = append(errs, err)
		}
	}
	switch {
	case rs.accepted != nil:
		return *rs.accepted, nil
	case len(errs) > 0:
		return Evidence{}, fmt.Errorf("verify signature of %s@%s: %w", imagename.String(repo), digest, errors.Join(errs...))
	case len(rs.rejected) > 0:
		return Evidence{}, &RejectedError{Want: v.want, Rejections: rs.rejected}
	}
	return Evidence{}, fmt.Errorf("%w: neither tag %s nor a referrer holds a cosign signature", ErrUnsigned, SigTag(h))
}

// results collects the outcome of the signatures examined for one digest.
type results struct {
	accepted *Evidence
	rejected []Rejection
}

func (rs *results) add(e Evidence, r *Rejection) {
	if r != nil {
		rs.rejected = append(rs.rejected, *r)
		return
	}
	rs.accepted = &e
}

func (rs *results) reject(method, format string, args ...any) {
	rs.rejected = append(rs.rejected, Rejection{Evidence: Evidence{Method: method}, Reason: fmt.Sprintf(format, args...)})
}

// badBlobError is a blob the registry served but that cannot be a
// signature: larger than a signature may be.
type badBlobError struct{ reason string }

func (e *badBlobError) Error() string { return e.reason }

// fetchBlob fetches the blob d describes, unless it is larger than limit:
// a signature never is, and the size in the manifest is known before any
// byte is read.
func fetchBlob(ctx context.Context, f Fetcher, repo name.Repository, d v1.Descriptor, limit int64) ([]byte, error) {
	if d.Size > limit {
		return nil, &badBlobError{fmt.Sprintf("blob %s is %d bytes, more than the %d a signature may take", d.Digest, d.Size, limit)}
	}
	b, err := f.Blob(ctx, repo.Digest(d.Digest.String()))
	if err != nil {
		return nil, fmt.Errorf("fetch blob %s: %w", d.Digest, err)
	}
	if int64(len(b)) > limit {
		return nil, &badBlobError{fmt.Sprintf("blob %s is more than the %d bytes a signature may take", d.Digest, limit)}
	}
	return b, nil
}
