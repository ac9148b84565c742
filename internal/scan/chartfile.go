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

// chartList takes each {name, version, <repoKey>} entry of the list
// under key in top, a document's top mapping: Chart.yaml's dependencies
// (whose Chart.lock the rewrite keeps consistent), a kustomization's
// helmCharts.
func (w *walker) chartList(top *kyaml.Node, key string, kind Kind, repoKey, missing string) {
	list := child(top, key)
	if list == nil || list.Kind != kyaml.SequenceNode {
		return
	}
	for _, d := range list.Content {
		w.chartEntry(kind, d, repoKey, missing)
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
	r, cred, err := chartRepository(repo, false)
	if err != nil {
		shown, _ := stripUserinfo(repo)
		w.chartSkip(at, kind, c, shown+"/"+name.Value, SkipInvalid, err.Error())
		return
	}
	c.Repository, c.Credentials = r, cred
	w.chartVersion(kind, c, version, name, missing)
}
