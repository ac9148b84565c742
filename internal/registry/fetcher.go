package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// The Client is the signature check's Fetcher (internal/signature):
// signatures are read with the Client's credentials, caps, budget and
// counting, and each manifest, blob and referrers index at most once per
// run. The registry does not import the signature check; a test asserts
// that the Client is its Fetcher.

// Manifest returns the manifest ref (a tag or a digest) names and its
// media type. A 404 wraps fs.ErrNotExist.
func (c *Client) Manifest(ctx context.Context, ref name.Reference) ([]byte, string, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return nil, "", fmt.Errorf("manifest %s: %w", refString(ref), err)
	}
	m, err := c.manifestOf(ctx, rt, ref.Identifier())
	if err != nil {
		return nil, "", fmt.Errorf("manifest %s: %w", refString(ref), err)
	}
	return slices.Clone(m.body), string(m.mediaType), nil
}

// Blob returns the blob ref names, its digest verified. The caller
// bounds what it asks for by the size in the descriptor; the Client caps
// every blob at Limits.BlobBytes. A 404 wraps fs.ErrNotExist.
func (c *Client) Blob(ctx context.Context, ref name.Digest) ([]byte, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", refString(ref), err)
	}
	digest := ref.DigestStr()
	b, err := c.blobs.get(ctx, rt.key()+"@"+digest, func(ctx context.Context) ([]byte, error) {
		return c.fetchBlob(ctx, rt, digest)
	})
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", refString(ref), err)
	}
	return slices.Clone(b), nil
}

// Referrers returns the OCI 1.1 referrers index of ref, filtered by
// artifactType where the registry filters. A registry that answers the
// endpoint with 404 has no referrers API (the distribution spec forbids a
// 404 from one that has it): the error wraps errors.ErrUnsupported.
func (c *Client) Referrers(ctx context.Context, ref name.Digest, artifactType string) ([]byte, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return nil, fmt.Errorf("referrers of %s: %w", refString(ref), err)
	}
	digest := ref.DigestStr()
	b, err := c.referrers.get(ctx, rt.key()+"@"+digest+"?"+artifactType, func(ctx context.Context) ([]byte, error) {
		return c.fetchReferrers(ctx, rt, digest, artifactType)
	})
	if err != nil {
		return nil, fmt.Errorf("referrers of %s: %w", refString(ref), err)
	}
	return slices.Clone(b), nil
}

func (c *Client) fetchReferrers(ctx context.Context, rt route, digest, artifactType string) ([]byte, error) {
	tr, err := rt.h.transportFor(ctx, rt.path)
	if err != nil {
		return nil, err
	}
	u := url.URL{Scheme: rt.h.scheme, Host: rt.h.name, Path: "/v2/" + rt.path + "/referrers/" + digest}
	if artifactType != "" {
		u.RawQuery = url.Values{"artifactType": {artifactType}}.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.oci.image.index.v1+json")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("registry has no referrers API (GET %s: 404): %w", redact(&u), errors.ErrUnsupported)
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return nil, err
	}
	// The attempt caps the body at Limits.ManifestBytes.
	return io.ReadAll(resp.Body)
}

// Exists reports whether the registry still has ref, by HEAD (not a
// pull): false for a 404, an error when the registry could not tell. A
// digest whose manifest this Client fetched exists for free.
func (c *Client) Exists(ctx context.Context, ref name.Digest) (bool, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", refString(ref), err)
	}
	digest := ref.DigestStr()
	key := rt.key() + "@" + digest
	if r, ok := c.manifests.lookup(key); ok && r.err == nil {
		return true, nil
	}
	ok, err := c.present.get(ctx, key, func(ctx context.Context) (bool, error) {
		tr, err := rt.h.transportFor(ctx, rt.path)
		if err != nil {
			return false, err
		}
		ref := rt.h.repo(rt.path).Digest(digest)
		_, err = remote.Head(ref, remote.WithTransport(tr), remote.WithContext(ctx))
		if err == nil {
			return true, nil
		}
		if errors.Is(notFound(err), fs.ErrNotExist) {
			return false, nil
		}
		if !headRefused(err) {
			return false, err
		}
		// A registry that refuses HEAD answers a GET, counted as a pull.
		switch _, err := c.manifestOf(ctx, rt, digest); {
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		case err != nil:
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", refString(ref), err)
	}
	return ok, nil
}
