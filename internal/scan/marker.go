package scan

import (
	"regexp"

	"github.com/google/go-containerregistry/pkg/name"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// markerRE matches the line comment that marks a scalar no other rule finds:
//
//	value: ghcr.io/acme/app:1.2.3   # imagebot: image
//	appVersion: 1.2.3               # imagebot: tag ghcr.io/acme/app
var markerRE = regexp.MustCompile(`(?:^|\s)imagebot:\s*(image|tag)\b\s*(\S*)`)

func (w *walker) marker(n *kyaml.Node) {
	if n.Kind != kyaml.ScalarNode || n.LineComment == "" {
		return
	}
	m := markerRE.FindStringSubmatch(n.LineComment)
	if m == nil {
		return
	}
	if m[1] == "image" {
		w.refString(n, KindMarker)
		return
	}
	if m[2] == "" {
		w.problem(n, "marker %q names no image (want `# imagebot: tag <image>`)", n.LineComment)
		return
	}
	if !isString(n) || w.seen[n] {
		return
	}
	if _, err := name.NewTag(m[2] + ":" + n.Value); err != nil {
		w.problem(n, "marker: %q is not a tag of %s: %v", n.Value, m[2], err)
		return
	}
	span, ok := w.span(n)
	if !ok {
		w.problem(n, "cannot locate %q in the file's bytes; left untouched", n.Value)
		return
	}
	w.seen[n] = true
	w.add(Ref{
		Location: Location{File: w.file, Line: n.Line, Col: n.Column},
		Kind:     KindMarker,
		Name:     m[2],
		Tag:      n.Value,
		TagField: Field{Span: span, OK: true, Scalar: n.Style == 0},
	})
}
