package scan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Chart names a Helm chart (or, for a Flux OCIRepository, an OCI artifact)
// whose version a Ref holds.
type Chart struct {
	// Repository is the chart repository: "oci://HOST/PATH" or
	// "https://HOST/PATH" (or http://), without a trailing slash; a bare
	// OCI host as Argo CD writes it ("registry-1.docker.io/bitnamicharts")
	// gets its "oci://". It is "" in File's result for a HelmRelease whose
	// HelmRepository is in another file: FS resolves it across the tree.
	Repository string
	// Name is the chart's name ("podinfo").
	Name string
	// Source is the Flux source a HelmRelease's chart comes from,
	// "HelmRepository/NAMESPACE/NAME"; "" for the other kinds.
	Source string
	// Credentials are those the repository's URL was written with: taken
	// out of Repository, for RequestURL alone.
	Credentials Credentials
}

// String is the chart as policies match it and imagebot prints it:
// "oci://ghcr.io/stefanprodan/charts/podinfo",
// "https://charts.bitnami.com/bitnami/nginx".
func (c Chart) String() string {
	if c.Repository == "" {
		return ""
	}
	return c.Repository + "/" + c.Name
}

// OCI reports whether the chart is in an OCI registry (listed through the
// registry client, with '+' written '_' in its tags).
func (c Chart) OCI() bool { return strings.HasPrefix(c.Repository, "oci://") }

// Reasons a chart version is left alone (Skipped.Reason), besides
// SkipVariable and SkipInvalid.
const (
	// SkipRange: a version range (">=1.2 <2", "1.*", "~1.2") or no version
	// at all: the tool picks the version at deploy time, and pinning it
	// would change what the author asked for.
	SkipRange = "range"
	// SkipNoSource: a HelmRelease whose sourceRef (or chartRef) names an
	// object that is not in the tree, so its repository is unknown.
	SkipNoSource = "no-source"
	// SkipNotChart: a chart from a git repository (an Argo CD source with
	// a path and no chart, a Flux GitRepository or Bucket): its revision
	// is a git revision, not a chart version.
	SkipNotChart = "not-a-chart"
	// SkipLocal: a Chart.yaml dependency or kustomize helmChart read from
	// the tree (file://, no repository) or through a repository alias
	// (@name, alias:name) that only the machine running helm can resolve.
	SkipLocal = "local"
)

// chartRepository normalizes a chart repository URL, without the
// credentials written in it (returned apart). bareOCI says that a URL
// without a scheme is an OCI registry (Argo CD's spelling).
func chartRepository(u string, bareOCI bool) (string, Credentials, error) {
	u, cred := stripUserinfo(u)
	r, err := normalRepository(u, bareOCI)
	return r, cred, err
}

func normalRepository(u string, bareOCI bool) (string, error) {
	r := strings.TrimRight(u, "/")
	switch {
	case strings.HasPrefix(r, "oci://"), strings.HasPrefix(r, "https://"), strings.HasPrefix(r, "http://"):
	case bareOCI && r != "" && !strings.Contains(r, "://"):
		r = "oci://" + r
	default:
		return "", fmt.Errorf("repository %s is not an https:// or oci:// chart repository", quote(u))
	}
	if strings.ContainsAny(r, " \t\r\n") || len(r) <= len("oci://") {
		return "", fmt.Errorf("repository %s is not a URL", quote(u))
	}
	return r, nil
}

var errRange = errors.New("range")

// checkChartVersion says whether v is one exact version (nil), a range
// (errRange), or neither. Exact is what Helm would fetch as it is: full
// semver, major.minor.patch with an optional leading v, prerelease and
// build metadata. "1.2" is a range to Helm, Flux and Argo CD alike.
func checkChartVersion(v string) error {
	if strings.ContainsAny(v, "\n\r") {
		return errSeveralLines
	}
	if _, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v")); err == nil {
		return nil
	}
	if _, err := semver.NewConstraint(v); err == nil {
		return errRange
	}
	return fmt.Errorf("version %s is neither a version (1.2.3) nor a range", quote(v))
}

// chartVersion takes the version node v of chart c (nil when there is
// none; at is then where the notice points). missing says what the tool
// does without a version.
func (w *walker) chartVersion(kind Kind, c Chart, v, at *kyaml.Node, missing string) {
	if v != nil && w.seen[v] {
		return
	}
	if v != nil {
		w.seen[v] = true
		at = v
	}
	value := c.Name
	if s := c.String(); s != "" {
		value = s
	}
	if v == nil || !hasValue(v) {
		w.chartSkip(at, kind, c, value, SkipRange, missing)
		return
	}
	value += "@" + v.Value
	if isVariable(v.Value) || isVariable(c.Name) || isVariable(c.Repository) {
		w.skip(w.at(at), kind, value, "")
		return
	}
	switch err := checkChartVersion(v.Value); {
	case errors.Is(err, errRange):
		w.chartSkip(at, kind, c, value, SkipRange, fmt.Sprintf("version range %s: resolved at deploy time; write one exact version to have it updated", quote(v.Value)))
		return
	case err != nil:
		w.chartSkip(at, kind, c, value, SkipInvalid, err.Error())
		return
	}
	w.chartAt(kind, c, v, v.Value)
}

// chartAt records the version (or OCI tag) in scalar v as a reference.
func (w *walker) chartAt(kind Kind, c Chart, v *kyaml.Node, version string) {
	span, ok := w.span(v)
	if !ok {
		w.problem(v, "cannot locate version %s in the file's bytes; left untouched", quote(v.Value))
		return
	}
	r := Ref{
		Location: w.at(v), Kind: kind, Tag: version,
		TagField: Field{Span: span, OK: true, Scalar: v.Style == 0},
	}
	if err := setChart(&r, c); err != nil {
		w.chartSkip(v, kind, c, c.String()+"@"+version, SkipInvalid, err.Error())
		return
	}
	w.charts = append(w.charts, r)
}

// setChart names r's chart; an OCI chart's name is parsed once, here, for
// the registry client.
func setChart(r *Ref, c Chart) error {
	r.Chart = &c
	r.Name, r.Image = c.String(), c.String()
	if !c.OCI() {
		return nil
	}
	repo, err := imagename.Parse(strings.TrimPrefix(c.String(), "oci://"))
	if err != nil {
		return fmt.Errorf("chart %s is not a valid OCI repository name", quote(c.String()))
	}
	r.Repo = repo
	return nil
}

func (w *walker) chartSkip(at *kyaml.Node, kind Kind, c Chart, value, reason, detail string) {
	if c.Source != "" && c.Repository == "" {
		w.unnamed = append(w.unnamed, unnamedSkip{i: len(w.skipped), source: c.Source, name: c.Name})
	}
	w.skipped = append(w.skipped, Skipped{
		Location: w.at(at), Kind: kind, Value: clip(value), Image: c.String(),
		Reason: reason, Detail: detail,
	})
}

// child returns the value of key in mapping m, following an alias; nil
// when m is not a mapping or has no such key.
func child(m *kyaml.Node, key string) *kyaml.Node {
	if m == nil || m.Kind != kyaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == kyaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			return v
		}
	}
	return nil
}

// childPath is child along keys.
func childPath(m *kyaml.Node, keys ...string) *kyaml.Node {
	for _, k := range keys {
		m = child(m, k)
	}
	return m
}

// str is the string value of key in m, "" when absent or not a scalar.
func str(m *kyaml.Node, key string) string {
	if m == nil || m.Kind != kyaml.MappingNode {
		return ""
	}
	if v := mapValue(m, key); v != nil && hasValue(v) {
		return v.Value
	}
	return ""
}
