package release

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Build compiles o.Main for every platform and assembles the multi-platform
// image index: on an empty base, one layer with the CA certificates and the
// non-root user (the same layer, so the same digest, on every platform), and
// one with the binary at /imagebot.
func Build(ctx context.Context, o Options) (v1.ImageIndex, error) {
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("image options: %w", err)
	}
	base, err := baseLayer(o.Created)
	if err != nil {
		return nil, err
	}
	var adds []mutate.IndexAddendum
	for _, p := range o.Platforms {
		build := o.Compile
		if build == nil {
			build = compile
		}
		bin, err := build(ctx, o, p)
		if err != nil {
			return nil, err
		}
		img, err := platformImage(base, bin, p, o)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", p, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	// The index carries the labels too: registries such as ghcr.io show
	// the index's annotations on the package page.
	return mutate.Annotations(idx, labels(o)).(v1.ImageIndex), nil
}

func baseLayer(created time.Time) (v1.Layer, error) {
	files, err := baseFiles()
	if err != nil {
		return nil, err
	}
	tb, err := layerTar(files, created)
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	return layerFromBytes(tb)
}

// platformImage is the image for one platform: base, then the binary, then
// a config that names the user and the entrypoint.
func platformImage(base v1.Layer, bin []byte, p v1.Platform, o Options) (v1.Image, error) {
	tb, err := layerTar([]entry{{name: Binary, mode: 0o755, body: bin}}, o.Created)
	if err != nil {
		return nil, err
	}
	binLayer, err := layerFromBytes(tb)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created,
			CreatedBy: "imagebot release: CA certificates, /etc/passwd with nonroot (65532)"}},
		mutate.Addendum{Layer: binLayer, History: v1.History{Created: created,
			CreatedBy: "imagebot release: go build -trimpath " + o.Main + " (" + p.String() + ")"}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = created
	cf.Config = v1.Config{
		User:       strconv.Itoa(uid) + ":" + strconv.Itoa(uid),
		Entrypoint: []string{Binary},
		// No shell and no /bin: PATH=/ lets `command: [imagebot]` resolve.
		// HOME is set because not every runtime derives it from /etc/passwd.
		Env:    []string{"PATH=/", "HOME=" + home},
		Labels: labels(o),
	}
	return mutate.ConfigFile(img, cf)
}

// layerFromBytes makes a gzip layer of an uncompressed tar, caching the
// compressed bytes: the manifest needs the digest, and the layout writes
// the blob, and compressing a 20 MB binary twice costs seconds.
func layerFromBytes(tb []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tb)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// labels are the OCI annotation keys
// (github.com/opencontainers/image-spec/blob/main/annotations.md); empty
// values are left out rather than written as "".
func labels(o Options) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "imagebot",
		"org.opencontainers.image.description": "Keeps container image tags in git on the newest immutable versions, one pull request per update.",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
	if o.Source != "" {
		l["org.opencontainers.image.source"] = o.Source
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	return l
}
