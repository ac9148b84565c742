package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Digest resolves a tag to the digest of its manifest ("sha256:..."); for a
// multi-platform image that is the index digest, which is what a manifest
// pins. It asks by HEAD, which registries do not count as a pull, and falls
// back to GET when HEAD is refused.
func (c *Client) Digest(ctx context.Context, ref name.Tag) (string, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return "", fmt.Errorf("resolve digest %s: %w", refString(ref), err)
	}
	tag := ref.TagStr()
	d, err := c.digests.get(ctx, rt.key()+":"+tag, func(ctx context.Context) (string, error) {
		if d, ok := c.cachedDigest(rt, tag); ok {
			return d, nil
		}
		d, err := c.fetchDigest(ctx, rt, tag)
		if err == nil {
			c.keepDigest(rt, tag, d)
		}
		return d, err
	})
	if err != nil {
		return "", fmt.Errorf("resolve digest %s: %w", refString(ref), err)
	}
	// A digest a tag resolves to exists: Exists need not ask.
	c.present.put(rt.key()+"@"+d, true, nil)
	return d, nil
}

func (c *Client) fetchDigest(ctx context.Context, rt route, tag string) (string, error) {
	tr, err := rt.h.authTransport(ctx, rt.path)
	if err != nil {
		return "", err
	}
	ref := rt.h.repo(rt.path).Tag(tag)
	opts := []remote.Option{remote.WithTransport(tr), remote.WithContext(ctx)}
	desc, err := remote.Head(ref, opts...)
	if err == nil {
		return desc.Digest.String(), nil
	}
	if !headRefused(err) {
		return "", err
	}
	c.log.Debug("HEAD refused, falling back to GET", "ref", ref.Name(), "error", err)
	d, err := remote.Get(ref, opts...)
	if err != nil {
		return "", err
	}
	return d.Digest.String(), nil
}

// headRefused tells whether a failed HEAD is worth a GET: the registry
// rejected the method (405, 400, 501), or answered without the digest or
// media type headers (some proxies strip them; a GET hashes the body).
// Network failures, timeouts and 401/404 would fail the GET the same way.
func headRefused(err error) bool {
	var te *transport.Error
	if errors.As(err, &te) {
		switch te.StatusCode {
		case http.StatusMethodNotAllowed, http.StatusBadRequest, http.StatusNotImplemented:
			return true
		}
		return false
	}
	var ue *url.Error
	var ne net.Error
	return !errors.As(err, &ue) && !errors.As(err, &ne) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
