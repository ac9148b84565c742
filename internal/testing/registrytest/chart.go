package registrytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// Helm's media types for a chart in an OCI registry (pkg/registry/constants.go).
const (
	HelmConfigMediaType = "application/vnd.cncf.helm.config.v1+json"
	HelmChartMediaType  = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

// Chart builds the OCI artifact `helm push` makes of a chart: an OCI
// manifest whose config is the chart's metadata (Helm's config media
// type) and whose one layer is the chart archive, with the
// org.opencontainers.image.created annotation Helm writes. Push it under
// the chart's version with '+' written '_', as Helm does.
func Chart(t testing.TB, c helmrepotest.Chart, created time.Time) v1.Image {
	t.Helper()
	img, err := ChartImage(c, created)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// ChartImage is Chart outside a test (a testscript command).
func ChartImage(c helmrepotest.Chart, created time.Time) (v1.Image, error) {
	config := helmrepotest.Config(c)
	archive := helmrepotest.Archive(c)
	desc := func(mt string, b []byte) v1.Descriptor {
		h, n, _ := v1.SHA256(bytes.NewReader(b)) // reading bytes never fails
		return v1.Descriptor{MediaType: types.MediaType(mt), Size: n, Digest: h}
	}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		Config:        desc(HelmConfigMediaType, config),
		Layers:        []v1.Descriptor{desc(HelmChartMediaType, archive)},
		Annotations: map[string]string{
			"org.opencontainers.image.created":     created.UTC().Format(time.RFC3339),
			"org.opencontainers.image.title":       c.Name,
			"org.opencontainers.image.version":     c.Version,
			"org.opencontainers.image.description": c.Description,
		},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return partial.CompressedToImage(&chartArtifact{manifest: raw, config: config, layer: archive, layerDesc: m.Layers[0]})
}

// chartArtifact is a manifest whose config is not an image config, which
// go-containerregistry's mutate cannot build.
type chartArtifact struct {
	manifest, config, layer []byte
	layerDesc               v1.Descriptor
}

func (a *chartArtifact) RawConfigFile() ([]byte, error)      { return a.config, nil }
func (a *chartArtifact) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (a *chartArtifact) RawManifest() ([]byte, error)        { return a.manifest, nil }

func (a *chartArtifact) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if h != a.layerDesc.Digest {
		return nil, fmt.Errorf("chart artifact: no layer %s", h)
	}
	return &chartLayer{b: a.layer, d: a.layerDesc}, nil
}

type chartLayer struct {
	b []byte
	d v1.Descriptor
}

func (l *chartLayer) Digest() (v1.Hash, error) { return l.d.Digest, nil }
func (l *chartLayer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.b)), nil
}
func (l *chartLayer) Size() (int64, error)                { return l.d.Size, nil }
func (l *chartLayer) MediaType() (types.MediaType, error) { return l.d.MediaType, nil }
