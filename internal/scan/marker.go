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
//	version: 15.4.1                 # imagebot: chart https://charts.bitnami.com/bitnami/nginx
var markerRE = regexp.MustCompile(`(?:^|\s)imagebot:\s*(image|tag|chart)\b\s*(\S*)`)

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
	switch {
	case m[1] == "image":
		w.refString(n, KindMarker)
	case m[1] == "chart":
		w.chartMarker(n, m[2], "`# imagebot: chart <repository>/<chart>`")
	case m[2] == "":
		w.problem(n, "marker %s names no image (want `# imagebot: tag <image>`)", quote(n.LineComment))
	default:
		w.markedTag(n, m[2], "`# imagebot: tag <image>`")
	}
}

// markedTag takes scalar n as a tag of image, which a marker named; want
// says how the marker is written, for a message.
func (w *walker) markedTag(n *kyaml.Node, image, want string) {
	repo, err := parseName(image)
	if err != nil {
		w.problem(n, "marker: %v (want %s)", err, want)
		return
	}
	if w.seen[n] || !hasValue(n) {
		return
	}
	w.seen[n] = true
	if err := checkMarkedTag(n.Value); err != nil {
		w.skip(w.at(n), KindMarker, image+":"+n.Value, err.Error())
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
		Name:     image,
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
