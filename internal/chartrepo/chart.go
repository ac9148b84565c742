package chartrepo

import (
	"time"

	"github.com/Masterminds/semver/v3"
)

// Chart is what a repository's index says of one chart.
type Chart struct {
	Repository string // the repository URL, without credentials
	Name       string
	// Versions are newest first by Helm's order (semver precedence; the
	// index's order among equal versions). Entries whose version is not
	// semver are left out, as Helm leaves them out.
	Versions []Version
}

// Deprecated tells whether the chart is deprecated: Helm calls a chart
// deprecated when its newest version says so (helm search, helm lint).
func (c Chart) Deprecated() bool { return len(c.Versions) > 0 && c.Versions[0].Deprecated }

// Version is one version of a chart as the index lists it.
type Version struct {
	Version *semver.Version // parsed once; Original() is the index's spelling
	// Created is when the version was indexed; zero when the index does
	// not say or says it in another form than RFC 3339.
	Created    time.Time
	Deprecated bool
	AppVersion string
	// Digest is the hex sha256 of the chart archive, as `helm package`
	// and `helm repo index` write it (no "sha256:" prefix).
	Digest  string
	Home    string
	Sources []string
	// URLs are where the archive is, as the index writes them: absolute,
	// or relative to the repository URL.
	URLs []string
}

// index is what a Client keeps of one repository's index.yaml.
type index struct {
	charts  map[string][]Version // the charts kept (only), each once listed
	listed  int                  // the charts the index lists, kept or not
	kept    int                  // versions kept, up to maxVersions
	sources map[string][]string  // while parsing: see shared
	// only, when set, are the charts kept (Client.Expect): a chart the
	// index lists but only does not name is not known to be missing.
	only map[string]bool
}

// keeps reports whether the index keeps chart's versions.
func (x *index) keeps(chart string) bool { return x.only == nil || x.only[chart] }
