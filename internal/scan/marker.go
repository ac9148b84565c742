package scan

import (
	"regexp"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// markerRE matches the line comment that marks a scalar no other rule finds:
//
//	value: ghcr.io/acme/app:1.2.3   # imagebot: image
//	appVersion: 1.2.3               # imagebot: tag ghcr.io/acme/app
var markerRE = regexp.MustCompile(`(?:^|\s)imagebot:\s*(image|tag)\b\s*(\S*)`)

// marker takes a scalar whose line comment is a marker. A marker that names
// no image, or not a valid one, is a Problem: the instruction itself is
// wrong. A marked value that is not a reference (or not a tag) is Skipped.
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
		w.problem(n, "marker %s names no image (want `# imagebot: tag <image>`)", quote(n.LineComment))
		return
	}
	repo, err := parseName(m[2])
	if err != nil {
		w.problem(n, "marker: %v (want `# imagebot: tag <image>`)", err)
		return
	}
	if w.seen[n] || !hasValue(n) {
		return
	}
	w.seen[n] = true
	if err := checkMarkedTag(n.Value); err != nil {
		w.skip(w.at(n), KindMarker, m[2]+":"+n.Value, err.Error())
		return
	}
	span, ok := w.span(n)
	if !ok {
		w.problem(n, "cannot locate %s in the file's bytes; left untouched", quote(n.Value))
		return
	}
	w.add(Ref{
		Location: w.at(n),
		Kind:     KindMarker,
		Name:     m[2],
		Repo:     repo,
		Tag:      n.Value,
		TagField: Field{Span: span, OK: true, Scalar: n.Style == 0},
	})
}

func checkMarkedTag(tag string) error {
	if strings.ContainsAny(tag, "\n\r") {
		return errSeveralLines
	}
	return checkTag(tag)
}
