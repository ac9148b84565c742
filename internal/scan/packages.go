package scan

import (
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// KindPackage is an OCI artifact that a GitOps object names under a key of
// its own rather than image: a Crossplane package (Provider, Configuration
// or Function spec.package) or a Tekton bundle (taskRef/pipelineRef
// bundle:, or the bundles resolver's bundle parameter). They are tagged
// OCI references, listed and moved as images are.
const KindPackage Kind = "package"

// packages reads the package references of doc, an object of group and
// kind: only those objects, so that a "package" or "bundle" key anywhere
// else is never taken for a reference.
func (w *walker) packages(doc *kyaml.Node, group, kind string) {
	switch {
	case group == "pkg.crossplane.io" && (kind == "Provider" || kind == "Configuration" || kind == "Function"):
		if n := childPath(doc, "spec", "package"); n != nil && n.Kind == kyaml.ScalarNode {
			w.refString(n, KindPackage)
		}
	case group == "tekton.dev":
		w.bundles(child(doc, "spec"), 0)
	}
}

// bundles finds Tekton's bundle references below n: `bundle:` beside a
// taskRef's or pipelineRef's name, and `resolver: bundles` with a
// `params` entry named bundle. depth bounds the descent (a Pipeline's
// tasks hold taskRefs a few levels down; nothing deeper is Tekton's).
func (w *walker) bundles(n *kyaml.Node, depth int) {
	if n == nil || depth > 12 {
		return
	}
	switch n.Kind {
	case kyaml.SequenceNode:
		for _, c := range n.Content {
			w.bundles(c, depth+1)
		}
	case kyaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch {
			case (k == "taskRef" || k == "pipelineRef") && v.Kind == kyaml.MappingNode:
				if b := child(v, "bundle"); b != nil && b.Kind == kyaml.ScalarNode {
					w.refString(b, KindPackage)
				}
				if str(v, "resolver") == "bundles" {
					for _, p := range seqOf(child(v, "params")) {
						if strings.EqualFold(str(p, "name"), "bundle") {
							if b := child(p, "value"); b != nil && b.Kind == kyaml.ScalarNode {
								w.refString(b, KindPackage)
							}
						}
					}
				}
			default:
				w.bundles(v, depth+1)
			}
		}
	}
}

func seqOf(n *kyaml.Node) []*kyaml.Node {
	if n == nil || n.Kind != kyaml.SequenceNode {
		return nil
	}
	return n.Content
}
