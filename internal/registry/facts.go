package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/imagebot/imagebot/internal/imagefacts"
)

// Facts for the gates cost what they read, and each digest's manifest
// and config are fetched at most once per Client, whoever asks: the
// gates, the signature check (Fetcher) or a PR body (Info).
//
//	manifest of a tag or digest   1 GET (none when fetched before)
//	created (NeedCreated)         + the config blob; for an index, first
//	                              the first platform's manifest
//	platforms (NeedPlatforms)     nothing more for an index; a single
//	                              image's config
//	newest (NeedNewest)           every platform's manifest and config,
//	                              at most maxPlatforms of them

// maxPlatforms bounds the platform images NeedNewest reads in one index.
const maxPlatforms = 16

// createdAnnotation is the OCI annotation (and label) for the build time.
const createdAnnotation = "org.opencontainers.image.created"

// manifest is a manifest as fetched.
type manifest struct {
	body      []byte
	mediaType types.MediaType
	digest    string
}

// imageConfig is what the gates and PR bodies read of an image config.
type imageConfig struct {
	created  time.Time
	labels   map[string]string
	platform string
	chart    *ChartInfo // a Helm chart's metadata, for a chart's config
}

// notFoundError is a registry's 404: the manifest or blob is not there.
// It is fs.ErrNotExist, which the gates and the signature check take for
// their "not found", so that the plan can tell a deleted candidate and the
// signature check an unsigned digest from a registry that could not be
// asked, without the registry importing either.
type notFoundError struct{ err error }

func (e *notFoundError) Error() string { return e.err.Error() }
func (e *notFoundError) Unwrap() error { return e.err }
func (e *notFoundError) Is(target error) bool {
	return target == fs.ErrNotExist
}

func notFound(err error) error {
	var te *transport.Error
	if errors.As(err, &te) && te.StatusCode == http.StatusNotFound {
		return &notFoundError{err}
	}
	return err
}

// Facts reads what the gates need to know of ref, a tag or a digest: the
// manifest digest always, and what need asks for. A 404 wraps
// fs.ErrNotExist.
func (c *Client) Facts(ctx context.Context, ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return imagefacts.Facts{}, fmt.Errorf("inspect %s: %w", refString(ref), err)
	}
	f, _, err := c.inspect(ctx, rt, ref.Identifier(), need)
	if err != nil {
		return imagefacts.Facts{}, fmt.Errorf("inspect %s: %w", refString(ref), err)
	}
	return f, nil
}

// Info fetches what a tag's image says about itself for a PR body:
// created time and labels from its config (for an index, the first
// platform's) and its platforms. It shares the gates' fetches, so an image
// the gates inspected costs nothing more.
func (c *Client) Info(ctx context.Context, ref name.Tag) (*Info, error) {
	rt, err := c.routeRef(ref)
	if err != nil {
		return nil, fmt.Errorf("image info %s: %w", refString(ref), err)
	}
	f, cfg, err := c.inspect(ctx, rt, ref.TagStr(), imagefacts.NeedCreated|imagefacts.NeedPlatforms)
	if err != nil {
		return nil, fmt.Errorf("image info %s: %w", refString(ref), err)
	}
	info := &Info{Digest: f.Digest, Created: f.Created, Platforms: f.Platforms}
	if cfg != nil {
		info.Labels = cfg.labels
		if cfg.chart != nil {
			ch := *cfg.chart
			ch.Sources = slices.Clone(ch.Sources)
			info.Chart = &ch
		}
	}
	return info.clone(), nil
}

func isDigest(ref string) bool { return strings.Contains(ref, ":") }

// inspect gathers the facts of ref, and returns the config it read
// created from (the first platform's for an index), if it read one.
func (c *Client) inspect(ctx context.Context, rt route, ref string, need imagefacts.Need) (imagefacts.Facts, *imageConfig, error) {
	m, err := c.manifestOf(ctx, rt, ref)
	if err != nil {
		return imagefacts.Facts{}, nil, err
	}
	f := imagefacts.Facts{Digest: m.digest}
	switch {
	case m.mediaType.IsIndex():
		return c.inspectIndex(ctx, rt, m, need, f)
	case m.mediaType.IsImage():
		if need == 0 {
			return f, nil, nil
		}
		cfg, err := c.imageFacts(ctx, rt, m, nil, &f)
		if err != nil {
			return imagefacts.Facts{}, nil, err
		}
		f.Platforms = []string{cfg.platform}
		if cfg.platform == "" {
			f.Platforms = nil
		}
		if imagefacts.Known(f.Created) {
			f.Newest = f.Created
		}
		return f, cfg, nil
	}
	return imagefacts.Facts{}, nil, fmt.Errorf("%s is a %s, not an image", ref, m.mediaType)
}

func (c *Client) inspectIndex(ctx context.Context, rt route, m *manifest, need imagefacts.Need, f imagefacts.Facts) (imagefacts.Facts, *imageConfig, error) {
	idx, err := v1.ParseIndexManifest(bytes.NewReader(m.body))
	if err != nil {
		return imagefacts.Facts{}, nil, fmt.Errorf("index %s: %w", m.digest, err)
	}
	images := platformImages(idx)
	if len(images) == 0 {
		return imagefacts.Facts{}, nil, fmt.Errorf("index %s lists no platform image", m.digest)
	}
	for _, d := range images {
		f.Platforms = append(f.Platforms, platform(*d.Platform))
	}
	var first *imageConfig
	if need&(imagefacts.NeedCreated|imagefacts.NeedNewest) != 0 {
		child, err := c.manifestOf(ctx, rt, images[0].Digest.String())
		if err != nil {
			return imagefacts.Facts{}, nil, err
		}
		if first, err = c.imageFacts(ctx, rt, child, idx.Annotations, &f); err != nil {
			return imagefacts.Facts{}, nil, err
		}
	}
	if need&imagefacts.NeedNewest != 0 {
		if f.Newest, err = c.newest(ctx, rt, images, idx.Annotations); err != nil {
			return imagefacts.Facts{}, nil, err
		}
	}
	return f, first, nil
}

// newest is the newest known created time among an index's platform
// images: a re-push that adds or rebuilds one platform moves it.
func (c *Client) newest(ctx context.Context, rt route, images []v1.Descriptor, indexAnn map[string]string) (time.Time, error) {
	var newest time.Time
	for i, d := range images {
		if i == maxPlatforms {
			break
		}
		child, err := c.manifestOf(ctx, rt, d.Digest.String())
		if err != nil {
			return time.Time{}, err
		}
		var f imagefacts.Facts
		if _, err := c.imageFacts(ctx, rt, child, indexAnn, &f); err != nil {
			return time.Time{}, err
		}
		if imagefacts.Known(f.Created) && f.Created.After(newest) {
			newest = f.Created
		}
	}
	return newest, nil
}

// imageFacts reads an image manifest's config and sets f.Created from the
// first source that knows it: the config's created, the manifest's
// annotation, the index's annotation, the config's label.
func (c *Client) imageFacts(ctx context.Context, rt route, m *manifest, indexAnn map[string]string, f *imagefacts.Facts) (*imageConfig, error) {
	im, err := v1.ParseManifest(bytes.NewReader(m.body))
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", m.digest, err)
	}
	cfg, err := c.configOf(ctx, rt, im.Config.Digest.String(), string(im.Config.MediaType))
	if err != nil {
		return nil, err
	}
	f.Created, f.CreatedFrom = cfg.created, ""
	for _, src := range []struct {
		from string
		v    string
	}{
		{imagefacts.FromConfig, ""},
		{imagefacts.FromAnnotation, im.Annotations[createdAnnotation]},
		{imagefacts.FromAnnotation, indexAnn[createdAnnotation]},
		{imagefacts.FromLabel, cfg.labels[createdAnnotation]},
	} {
		t := cfg.created
		if src.from != imagefacts.FromConfig {
			if t, err = time.Parse(time.RFC3339, src.v); err != nil {
				continue
			}
		}
		if imagefacts.Known(t) {
			f.Created, f.CreatedFrom = t, src.from
			break
		}
	}
	return cfg, nil
}

// platformImages are the images of an index that someone runs: entries
// without a platform or for "unknown/unknown" are build attestations
// (buildx), not images.
func platformImages(idx *v1.IndexManifest) []v1.Descriptor {
	var out []v1.Descriptor
	for _, d := range idx.Manifests {
		if d.MediaType.IsImage() && d.Platform != nil && d.Platform.OS != "unknown" && d.Platform.OS != "" {
			out = append(out, d)
		}
	}
	return out
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

// manifestOf returns the manifest ref names, fetching it at most once per
// digest: a tag whose digest is known (from a HEAD or an earlier GET) is
// read by digest, from the cache when it was fetched before.
func (c *Client) manifestOf(ctx context.Context, rt route, ref string) (*manifest, error) {
	if isDigest(ref) {
		return c.manifests.get(ctx, rt.key()+"@"+ref, func(ctx context.Context) (*manifest, error) {
			return c.fetchManifest(ctx, rt, rt.h.repo(rt.path).Digest(ref))
		})
	}
	if r, ok := c.digests.lookup(rt.key() + ":" + ref); ok && r.err == nil {
		return c.manifestOf(ctx, rt, r.v)
	}
	// A digest the cache (WithCache) holds for the tag, while its listing
	// is fresh, makes the manifest content-addressed: cached too, maybe.
	if d, ok := c.cachedDigest(rt, ref); ok {
		c.digests.put(rt.key()+":"+ref, d, nil)
		return c.manifestOf(ctx, rt, d)
	}
	return c.tagManifests.get(ctx, rt.key()+":"+ref, func(ctx context.Context) (*manifest, error) {
		m, err := c.fetchManifest(ctx, rt, rt.h.repo(rt.path).Tag(ref))
		if err == nil {
			c.manifests.put(rt.key()+"@"+m.digest, m, nil)
			c.digests.put(rt.key()+":"+ref, m.digest, nil)
			c.keepDigest(rt, ref, m.digest)
		}
		return m, err
	})
}

func (c *Client) fetchManifest(ctx context.Context, rt route, ref name.Reference) (*manifest, error) {
	tr, err := rt.h.transportFor(ctx, rt.path)
	if err != nil {
		return nil, err
	}
	desc, err := remote.Get(ref, remote.WithTransport(tr), remote.WithContext(ctx))
	if err != nil {
		return nil, notFound(err)
	}
	return &manifest{body: desc.Manifest, mediaType: desc.MediaType, digest: desc.Digest.String()}, nil
}

// configOf returns an image config, fetched at most once per digest.
func (c *Client) configOf(ctx context.Context, rt route, digest, mediaType string) (*imageConfig, error) {
	return c.configs.get(ctx, rt.key()+"@"+digest, func(ctx context.Context) (*imageConfig, error) {
		b, err := c.fetchBlob(ctx, rt, digest)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", digest, err)
		}
		if mediaType == HelmConfigMediaType {
			// A chart's metadata, not an image config: no created
			// time (Helm writes it as the manifest's annotation) and
			// no platform.
			var ch ChartInfo
			if err := json.Unmarshal(b, &ch); err != nil {
				return nil, fmt.Errorf("chart config %s: %w", digest, err)
			}
			return &imageConfig{chart: &ch}, nil
		}
		cf, err := v1.ParseConfigFile(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", digest, err)
		}
		return &imageConfig{
			created:  cf.Created.Time,
			labels:   cf.Config.Labels,
			platform: platform(v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}),
		}, nil
	})
}

// fetchBlob reads a blob whole, its digest verified; the attempt caps it
// at Limits.BlobBytes.
func (c *Client) fetchBlob(ctx context.Context, rt route, digest string) ([]byte, error) {
	tr, err := rt.h.transportFor(ctx, rt.path)
	if err != nil {
		return nil, err
	}
	l, err := remote.Layer(rt.h.repo(rt.path).Digest(digest), remote.WithTransport(tr), remote.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, notFound(err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// clone lets callers keep and modify what they got without touching the
// cached answer other callers share.
func (i *Info) clone() *Info {
	out := *i
	out.Labels = maps.Clone(i.Labels)
	out.Platforms = slices.Clone(i.Platforms)
	return &out
}
