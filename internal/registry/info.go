package registry

import "time"

// Info is what a registry says about one image beyond its tags: the image
// config's created time and OCI labels, and the platforms of an index.
type Info struct {
	Digest    string
	Created   time.Time
	Labels    map[string]string
	Platforms []string // "linux/amd64", ...; one entry for a single image
	// Chart is what a Helm chart's config blob says of it (`helm push`
	// writes the chart's metadata there, media type HelmConfigMediaType);
	// nil for an image.
	Chart *ChartInfo
}

// HelmConfigMediaType is the media type of the config blob of a Helm
// chart pushed to an OCI registry (Helm's pkg/registry/constants.go).
const HelmConfigMediaType = "application/vnd.cncf.helm.config.v1+json"

// ChartInfo is the part of a Helm chart's metadata (Chart.yaml, as the
// config blob holds it in JSON) that a pull request quotes.
type ChartInfo struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	AppVersion string   `json:"appVersion"`
	Home       string   `json:"home"`
	Sources    []string `json:"sources"`
}
