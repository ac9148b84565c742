package scan

import (
	"fmt"
	"path"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// isChartFile reports whether file is a chart's metadata, which lists its
// dependencies: Chart.yaml, or requirements.yaml for apiVersion v1.
func isChartFile(file string) bool {
	base := path.Base(file)
	return base == "Chart.yaml" || base == "requirements.yaml"
}

// chartDependencies takes Chart.yaml's dependencies[]: {name, version,
// repository}. The rewrite keeps Chart.lock consistent with them.
func (w *walker) chartDependencies(doc *kyaml.Node) {
	if doc.Kind == kyaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	deps := child(doc, "dependencies")
	if deps == nil || deps.Kind != kyaml.SequenceNode {
		return
	}
	for _, d := range deps.Content {
		w.chartEntry(KindChartDependency, d, "repository", "no version: helm dependency update takes the newest")
	}
}

// helmCharts takes a kustomization's helmCharts[]: {name, repo, version}.
func (w *walker) helmCharts(doc *kyaml.Node) {
	if doc.Kind == kyaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	hcs := child(doc, "helmCharts")
	if hcs == nil || hcs.Kind != kyaml.SequenceNode {
		return
	}
	for _, d := range hcs.Content {
		w.chartEntry(KindHelmCharts, d, "repo", "no version: kustomize pulls the newest")
	}
}

// chartEntry takes one {name, version, <repoKey>} entry. A chart from the
// tree (file://, or no repository: one under charts/) or from a repository
// alias (@name, alias:name, which only the machine running helm resolves)
// is left alone with a notice.
func (w *walker) chartEntry(kind Kind, d *kyaml.Node, repoKey, missing string) {
	name := mapValue(d, "name")
	if d.Kind != kyaml.MappingNode || name == nil || !hasValue(name) {
		return
	}
	version := mapValue(d, "version")
	at := name
	if version != nil {
		at = version
	}
	c := Chart{Name: name.Value}
	repo := str(d, repoKey)
	switch {
	case repo == "" || strings.HasPrefix(repo, "file://"):
		w.chartSkip(at, kind, c, name.Value, SkipLocal, "a chart from this tree (file:// or no repository): its version is not looked up")
		return
	case strings.HasPrefix(repo, "@") || strings.HasPrefix(repo, "alias:"):
		w.chartSkip(at, kind, c, repo+"/"+name.Value, SkipLocal, fmt.Sprintf("repository alias %s is resolved by `helm repo add` on the machine running helm; write its URL to have it updated", quote(repo)))
		return
	case isVariable(repo):
		w.skip(w.at(at), kind, repo, "")
		return
	}
	r, err := chartRepository(repo, false)
	if err != nil {
		w.chartSkip(at, kind, c, repo+"/"+name.Value, SkipInvalid, err.Error())
		return
	}
	c.Repository = r
	w.chartVersion(kind, c, version, name, missing)
}
