package signature

import (
	"context"
	"errors"
	"io/fs"

	"github.com/google/go-containerregistry/pkg/name"
)

// Fetcher is what verification needs from a registry. internal/registry's
// client implements it with its caching, request counting, size caps and
// credentials; tests implement it over go-containerregistry's remote.
//
// Names come parsed (internal/scan parsed them once). An answer the
// registry does not have (404, MANIFEST_UNKNOWN, BLOB_UNKNOWN) must wrap
// ErrNotFound: a missing signature then reads as "unsigned", while any
// other error (registry down, denied) leaves the digest unverified.
type Fetcher interface {
	// Manifest returns the manifest ref (a tag or a digest) names and its
	// media type.
	Manifest(ctx context.Context, ref name.Reference) (body []byte, mediaType string, err error)
	// Blob returns the content of the blob ref names.
	Blob(ctx context.Context, ref name.Digest) ([]byte, error)
	// Referrers returns the OCI 1.1 referrers index of digest (GET
	// /v2/<name>/referrers/<digest>?artifactType=...). The registry may
	// ignore the filter. It wraps ErrNoReferrersAPI when the registry lacks
	// the API (a 404 from the endpoint), never ErrNotFound: a registry with
	// the API answers an empty index for a digest without referrers.
	Referrers(ctx context.Context, ref name.Digest, artifactType string) ([]byte, error)
}

var (
	// ErrNotFound is what Fetcher errors wrap when the registry does not
	// have the manifest or blob asked for. It is fs.ErrNotExist, which
	// the registry client wraps without importing this package.
	ErrNotFound = fs.ErrNotExist
	// ErrNoReferrersAPI is what Fetcher.Referrers errors wrap when the
	// registry does not serve the OCI 1.1 referrers API; Verify then reads
	// the referrers tag schema instead. It is errors.ErrUnsupported, for
	// the same reason.
	ErrNoReferrersAPI = errors.ErrUnsupported
)
