package scan

import (
	"fmt"
	"path"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// fluxSource is a Flux HelmRepository or OCIRepository found in the tree,
// which a HelmRelease in any file may name.
type fluxSource struct {
	kind, namespace, name string
	repository            string // normalized; "" when its URL is not usable
	credentials           Credentials
	problem               string // why repository is "", for the notice
}

// chartRef is a HelmRelease's spec.chartRef: its version is in the object
// it names, so it is only a notice when that object is not in the tree.
type chartRef struct {
	at                    Location
	kind, namespace, name string
}

// object takes the GitOps objects that hold chart versions or images in
// strings: Flux HelmRelease, HelmRepository, OCIRepository and Argo CD
// Application, ApplicationSet, given a document's top node. Other
// documents are only walked.
func (w *walker) object(doc *kyaml.Node) {
	group, _, _ := strings.Cut(str(doc, "apiVersion"), "/")
	kind := str(doc, "kind")
	w.watched(doc, group, kind)
	w.packages(doc, group, kind) // packages.go
	switch {
	case group == "helm.toolkit.fluxcd.io" && kind == "HelmRelease":
		w.helmRelease(doc)
	case group == "source.toolkit.fluxcd.io" && kind == "HelmRepository":
		w.helmRepository(doc)
	case group == "source.toolkit.fluxcd.io" && kind == "OCIRepository":
		w.ociRepository(doc)
	case group == "source.toolkit.fluxcd.io" && kind == "GitRepository":
		w.gitRepository(doc) // gitsource.go
	case group == "argoproj.io" && kind == "Application":
		w.argoSpec(child(doc, "spec"))
	case group == "argoproj.io" && kind == "ApplicationSet":
		w.argoSpec(childPath(doc, "spec", "template", "spec"))
		w.argoGenerators(childPath(doc, "spec", "generators"), 0) // gitsource.go
	}
}

func namespaceOf(obj *kyaml.Node) string { return str(child(obj, "metadata"), "namespace") }

func (w *walker) helmRepository(obj *kyaml.Node) {
	spec := child(obj, "spec")
	s := fluxSource{kind: "HelmRepository", namespace: namespaceOf(obj), name: str(child(obj, "metadata"), "name")}
	u := str(spec, "url")
	repo, cred, err := chartRepository(u, false)
	switch {
	case isVariable(u):
		s.problem = fmt.Sprintf("its spec.url %s is a placeholder filled in by another tool", quote(u))
	case err != nil:
		s.problem = fmt.Sprintf("its spec.url: %v", err)
	case str(spec, "type") == "oci" && !strings.HasPrefix(repo, "oci://"):
		s.problem = fmt.Sprintf("type: oci with spec.url %s, which is not oci://", quote(u))
	default:
		s.repository, s.credentials = repo, cred
	}
	w.sources = append(w.sources, s)
}

// ociRepository takes an OCIRepository's spec.ref: tag (a reference),
// digest (a reference pinned by digest), semver (a range, left alone).
// Flux uses digest over semver over tag, and `latest` when none is set.
func (w *walker) ociRepository(obj *kyaml.Node) {
	spec := child(obj, "spec")
	url := mapValue(spec, "url")
	w.sources = append(w.sources, fluxSource{kind: "OCIRepository", namespace: namespaceOf(obj), name: str(child(obj, "metadata"), "name")})
	if url == nil || !hasValue(url) {
		return
	}
	ref := child(spec, "ref")
	at := url
	u, _ := stripUserinfo(url.Value) // the registry's credentials are the config's
	c := Chart{Repository: path.Dir(u), Name: path.Base(u)}
	if !strings.HasPrefix(u, "oci://") || path.Dir(u) == "oci:" {
		w.chartSkip(at, KindOCIRepository, Chart{}, url.Value, SkipInvalid, fmt.Sprintf("spec.url %s is not oci://HOST/PATH", quote(url.Value)))
		return
	}
	c.Repository = strings.Replace(c.Repository, "oci:/", "oci://", 1) // path.Dir cleans the double slash
	tag, digest, rng := mapValue(ref, "tag"), mapValue(ref, "digest"), mapValue(ref, "semver")
	for _, n := range []*kyaml.Node{tag, digest, rng} {
		if n != nil && hasValue(n) && (isVariable(n.Value) || isVariable(url.Value)) {
			w.skip(w.at(n), KindOCIRepository, url.Value+":"+n.Value, "")
			return
		}
	}
	switch {
	case digest != nil && hasValue(digest):
		w.ociDigest(c, tag, digest)
	case rng != nil && hasValue(rng):
		w.chartSkip(rng, KindOCIRepository, c, c.String()+"@"+rng.Value, SkipRange, fmt.Sprintf("semver range %s: Flux picks the version; write ref.tag to have it updated", quote(rng.Value)))
	case tag != nil && hasValue(tag):
		if err := checkMarkedTag(tag.Value); err != nil {
			w.chartSkip(tag, KindOCIRepository, c, c.String()+":"+tag.Value, SkipInvalid, err.Error())
			return
		}
		w.seen[tag] = true
		w.chartAt(KindOCIRepository, c, tag, tag.Value)
	default:
		w.chartSkip(at, KindOCIRepository, c, c.String(), SkipRange, "no ref.tag: Flux takes the tag latest")
	}
}

// ociDigest takes an OCIRepository pinned by ref.digest (with or without
// the tag it came from).
func (w *walker) ociDigest(c Chart, tag, digest *kyaml.Node) {
	if err := checkDigest(digest.Value); err != nil {
		w.chartSkip(digest, KindOCIRepository, c, c.String()+"@"+digest.Value, SkipInvalid, err.Error())
		return
	}
	df := Field{}
	if span, ok := w.span(digest); ok {
		df = Field{Span: span, OK: true, Scalar: digest.Style == 0}
	}
	at := digest
	r := Ref{Kind: KindOCIRepository, Digest: digest.Value, DigestField: df}
	if tag != nil && hasValue(tag) && checkMarkedTag(tag.Value) == nil {
		if span, ok := w.span(tag); ok {
			at = tag
			r.Tag, r.TagField = tag.Value, Field{Span: span, OK: true, Scalar: tag.Style == 0}
		}
	}
	r.Location = w.at(at)
	if err := setChart(&r, c); err != nil {
		w.chartSkip(at, KindOCIRepository, c, c.String(), SkipInvalid, err.Error())
		return
	}
	w.charts = append(w.charts, r)
}

// helmRelease takes spec.chart.spec (chart, version, sourceRef) and
// spec.chartRef. The repository is resolved from the HelmRepository the
// sourceRef names, in this file or, by FS, anywhere in the tree.
func (w *walker) helmRelease(obj *kyaml.Node) {
	ns := namespaceOf(obj)
	spec := child(obj, "spec")
	if cr := child(spec, "chartRef"); cr != nil && cr.Kind == kyaml.MappingNode {
		name := mapValue(cr, "name")
		if name != nil && hasValue(name) {
			w.chartRefs = append(w.chartRefs, chartRef{at: w.at(name), kind: str(cr, "kind"), namespace: orDefault(str(cr, "namespace"), ns), name: name.Value})
		}
	}
	cs := childPath(spec, "chart", "spec")
	chart := mapValue(cs, "chart")
	if cs == nil || chart == nil || !hasValue(chart) {
		return
	}
	version := mapValue(cs, "version")
	sref := child(cs, "sourceRef")
	c := Chart{Name: chart.Value}
	switch kind := str(sref, "kind"); kind {
	case "HelmRepository":
		c.Source = "HelmRepository/" + orDefault(str(sref, "namespace"), ns) + "/" + str(sref, "name")
	case "GitRepository", "Bucket":
		at := chart
		if version != nil {
			at = version
		}
		w.chartSkip(at, KindHelmRelease, c, chart.Value, SkipNotChart, fmt.Sprintf("the chart is a path in a %s, not a version in a chart repository", kind))
		return
	default:
		w.chartSkip(chart, KindHelmRelease, c, chart.Value, SkipNoSource, fmt.Sprintf("sourceRef kind %s is not HelmRepository", quote(kind)))
		return
	}
	w.chartVersion(KindHelmRelease, c, version, chart, "no version: Flux installs the newest (*)")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// resolveSources names the repository of every HelmRelease chart whose
// HelmRepository is among sources. With final, a chart still unresolved
// and a chartRef to an object not among sources become Skipped: FS calls
// it so once it has seen every file.
func resolveSources(charts []Ref, refs []chartRef, sources []fluxSource, final bool) ([]Ref, []Skipped) {
	var skipped []Skipped
	kept := charts[:0]
	for _, r := range charts {
		if r.Kind != KindHelmRelease || r.Chart.Repository != "" {
			kept = append(kept, r)
			continue
		}
		s, why := findSource(sources, r.Chart.Source)
		if s != nil {
			c := *r.Chart
			c.Repository, c.Credentials = s.repository, s.credentials
			if err := setChart(&r, c); err != nil {
				why = err.Error()
			} else {
				kept = append(kept, r)
				continue
			}
		}
		if final {
			skipped = append(skipped, Skipped{Location: r.Location, Kind: r.Kind, Value: clip(r.Chart.Name + "@" + r.Tag), Image: r.Chart.Name, Reason: SkipNoSource, Detail: why})
		} else {
			kept = append(kept, r)
		}
	}
	if !final {
		return kept, nil
	}
	for _, cr := range refs {
		if cr.kind != "OCIRepository" {
			skipped = append(skipped, Skipped{Location: cr.at, Kind: KindHelmRelease, Value: clip(cr.name), Reason: SkipNoSource,
				Detail: fmt.Sprintf("chartRef names a %s; only an OCIRepository's ref.tag is followed", quote(cr.kind))})
			continue
		}
		if s, why := findSource(sources, cr.kind+"/"+cr.namespace+"/"+cr.name); s == nil {
			skipped = append(skipped, Skipped{Location: cr.at, Kind: KindHelmRelease, Value: clip(cr.name), Reason: SkipNoSource, Detail: why})
		}
	}
	return kept, skipped
}

// findSource finds the source "KIND/NAMESPACE/NAME" names. A namespace
// that either side leaves empty (set by a kustomization or at apply time)
// matches any, as long as that leaves one repository.
func findSource(sources []fluxSource, key string) (*fluxSource, string) {
	parts := strings.SplitN(key, "/", 3)
	kind, ns, name := parts[0], parts[1], parts[2]
	var found *fluxSource
	for i := range sources {
		s := &sources[i]
		if s.kind != kind || s.name != name || (ns != "" && s.namespace != "" && s.namespace != ns) {
			continue
		}
		if found != nil && found.repository != s.repository {
			return nil, fmt.Sprintf("%s %s is defined more than once in this tree with different URLs; give the sourceRef a namespace", kind, quote(name))
		}
		found = s
	}
	switch {
	case found == nil:
		return nil, fmt.Sprintf("%s %s (namespace %s) is not in this tree, so its repository is unknown", kind, quote(name), quote(ns))
	case kind == "HelmRepository" && found.repository == "":
		return nil, fmt.Sprintf("HelmRepository %s: %s", quote(name), found.problem)
	}
	return found, ""
}

// unnamedSkip is a HelmRelease's chart version left alone (a range, no
// version, a bad one) before its HelmRepository was found: skipped[i]
// gets its chart's name once the sources are known.
type unnamedSkip struct {
	i            int
	source, name string
}

// nameSkipped names the chart of each of unnamed in skipped: its
// repository and name when sources hold its HelmRepository, its bare name
// otherwise, so that the notice says which chart it is about.
func nameSkipped(skipped []Skipped, unnamed []unnamedSkip, sources []fluxSource) {
	for _, u := range unnamed {
		c := Chart{Name: u.name}
		if s, _ := findSource(sources, u.source); s != nil {
			c.Repository = s.repository
		}
		skipped[u.i].Image = orDefault(c.String(), c.Name)
	}
}
