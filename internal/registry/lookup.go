package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Digest resolves a tag to the digest of its manifest ("sha256:..."); for a
// multi-platform image that is the index digest, which is what a manifest
// pins. It asks by HEAD, which registries do not count as a pull, and falls
// back to GET when HEAD is refused.
func (c *Client) Digest(ctx context.Context, repo, tag string) (string, error) {
	rt, err := c.route(repo)
	if err == nil {
		_, err = name.NewTag(repo + ":" + tag)
	}
	if err != nil {
		return "", fmt.Errorf("resolve digest %s:%s: %w", repo, tag, err)
	}
	d, err := c.digests.get(ctx, rt.key()+":"+tag, func(ctx context.Context) (string, error) {
		return c.fetchDigest(ctx, rt, tag)
	})
	if err != nil {
		return "", fmt.Errorf("resolve digest %s:%s: %w", repo, tag, err)
	}
	return d, nil
}

func (c *Client) fetchDigest(ctx context.Context, rt route, tag string) (string, error) {
	tr, err := rt.h.transportFor(ctx, rt.path)
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

// Info fetches what a tag's image says about itself: created time and
// labels from its config and the platforms it is built for. For an index
// the config is that of the first platform listed. It costs two or three
// GETs (manifest, child manifest, config) and is done only when asked.
func (c *Client) Info(ctx context.Context, repo, tag string) (*Info, error) {
	rt, err := c.route(repo)
	if err == nil {
		_, err = name.NewTag(repo + ":" + tag)
	}
	if err != nil {
		return nil, fmt.Errorf("image info %s:%s: %w", repo, tag, err)
	}
	key := rt.key() + ":" + tag
	info, err := c.infos.get(ctx, key, func(ctx context.Context) (*Info, error) {
		return c.fetchInfo(ctx, rt, tag)
	})
	if err != nil {
		return nil, fmt.Errorf("image info %s:%s: %w", repo, tag, err)
	}
	// The manifest GET told us the digest: a later Digest call is free.
	c.digests.put(key, info.Digest, nil)
	return info.clone(), nil
}

func (c *Client) fetchInfo(ctx context.Context, rt route, tag string) (*Info, error) {
	tr, err := rt.h.transportFor(ctx, rt.path)
	if err != nil {
		return nil, err
	}
	ref := rt.h.repo(rt.path).Tag(tag)
	desc, err := remote.Get(ref, remote.WithTransport(tr), remote.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	info := &Info{Digest: desc.Digest.String()}
	var img v1.Image
	switch {
	case desc.MediaType.IsIndex():
		idx, err := desc.ImageIndex()
		if err != nil {
			return nil, err
		}
		var first *v1.Descriptor
		if first, info.Platforms, err = platforms(idx); err != nil {
			return nil, err
		}
		if img, err = idx.Image(first.Digest); err != nil {
			return nil, err
		}
	case desc.MediaType.IsImage():
		if img, err = desc.Image(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s is a %s, not an image", ref.Name(), desc.MediaType)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	info.Created = cfg.Created.Time
	info.Labels = cfg.Config.Labels
	if info.Platforms == nil {
		if p := platform(v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant}); p != "" {
			info.Platforms = []string{p}
		}
	}
	return info, nil
}

// platforms lists the platforms of an index and returns the first image.
// Entries without a platform or for "unknown/unknown" are build
// attestations (buildx), not images anyone runs.
func platforms(idx v1.ImageIndex) (*v1.Descriptor, []string, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, nil, err
	}
	var first *v1.Descriptor
	var out []string
	for i, m := range im.Manifests {
		if !m.MediaType.IsImage() || m.Platform == nil || m.Platform.OS == "unknown" {
			continue
		}
		if first == nil {
			first = &im.Manifests[i]
		}
		out = append(out, platform(*m.Platform))
	}
	if first == nil {
		return nil, nil, errors.New("index lists no platform image")
	}
	return first, out, nil
}

// platform spells a platform "os/arch[/variant]", as docker --platform does.
func platform(p v1.Platform) string {
	if p.OS == "" {
		return ""
	}
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// clone lets callers keep and modify what they got without touching the
// cached answer other callers share.
func (i *Info) clone() *Info {
	out := *i
	out.Labels = maps.Clone(i.Labels)
	out.Platforms = slices.Clone(i.Platforms)
	return &out
}
