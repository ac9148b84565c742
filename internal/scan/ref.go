package scan

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
)

// Kind says which construct an image reference was found in.
type Kind string

const (
	KindImage     Kind = "image"     // a string value under an `image:` key
	KindKustomize Kind = "kustomize" // a kustomization `images:` entry
	KindHelm      Kind = "helm"      // a Helm-style `image: {registry, repository, tag}` map
	KindMarker    Kind = "marker"    // a scalar whose line carries an `# imagebot:` marker, or below a `# renovate:` annotation
	KindOCI       Kind = "oci"       // an `oci://REGISTRY/REPO:TAG` string (an OCI artifact)

	// Chart versions (Ref.Chart is set; see chart.go).
	KindHelmRelease     Kind = "helmrelease"      // Flux HelmRelease spec.chart.spec.version
	KindOCIRepository   Kind = "ocirepository"    // Flux OCIRepository spec.ref.tag
	KindArgoCD          Kind = "argocd"           // Argo CD Application/ApplicationSet source targetRevision
	KindChartDependency Kind = "chart-dependency" // Chart.yaml dependencies[].version
	KindHelmCharts      Kind = "helmcharts"       // kustomize helmCharts[].version
	KindChartMarker     Kind = "chart-marker"     // a version marked `# imagebot: chart`, or below `# renovate: datasource=helm`
)

// IsChart reports whether references of this kind are chart versions
// (or git tags, KindGit) rather than image tags.
func (k Kind) IsChart() bool {
	switch k {
	case KindHelmRelease, KindOCIRepository, KindArgoCD, KindChartDependency, KindHelmCharts, KindChartMarker:
		return true
	case KindGit: // a git tag is a version as a chart's is, not an image tag
		return true
	}
	return false
}

// Span is a half-open byte range [Start, End) in a file's original bytes.
type Span struct{ Start, End int }

// Len is the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// Field is the place in a file that holds one part of a reference (its tag or
// its digest). An empty span is an insertion point: when the part is absent
// the rewriter inserts Prefix followed by the new text there.
type Field struct {
	Span   Span
	Prefix string // text put before the value when it is inserted (":" or "@", or a new YAML line)
	// Scalar is true when the span is a whole plain YAML scalar, so that the
	// rewriter can quote a new value that YAML would otherwise read as a number.
	Scalar bool
	// OK is false when this part can neither be replaced nor inserted.
	OK bool
}

// Location is where a reference stands: a file relative to the repository
// root (slash-separated), and the 1-based line and column of its value.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"-"`
}

func (l Location) String() string {
	if l.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Ref is one image reference, or one chart version, at one place in one
// file. A chart version (Kind.IsChart, Chart set) has Tag for the version,
// TagField for its bytes, Name and Image for Chart.String(), and Repo only
// for a chart in an OCI registry.
type Ref struct {
	Location
	Kind Kind
	// Name is the repository as written, with its registry when one was
	// written ("nginx", "ghcr.io/acme/api"); for kustomize it is newName when
	// set. The rewriter keeps it as it is.
	Name string
	// Repo is Name parsed, here and only here, and normalized: every
	// spelling of one repository is one value, which the plan groups by
	// and asks the registry with.
	Repo name.Repository
	// Image is Repo as imagebot prints it, keys policies by, and names
	// branches and markers with ("docker.io/library/nginx").
	Image string
	// Tag and Digest are the current values as written; either may be "".
	Tag    string
	Digest string
	// TagField and DigestField say where to write a new tag and digest.
	TagField    Field
	DigestField Field
	// Chart names the chart whose version Tag is; nil for an image.
	Chart *Chart
	// Git names the git repository whose tag Tag is (KindGit); nil
	// otherwise. Such references are in Result.Charts.
	Git *GitSource
}

func (r Ref) String() string {
	s := r.Name
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// Problem is something in a user's file that imagebot could not handle. It
// travels in the plan and prints as "file:line:col: message".
type Problem struct {
	Location
	Err error
}

func (p Problem) Error() string { return p.Location.String() + ": " + p.Err.Error() }

func (p Problem) Unwrap() error { return p.Err }
