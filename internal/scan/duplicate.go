package scan

import (
	"fmt"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// duplicated returns the keys of mapping m that appear more than once, each
// with the line of its first appearance, or nil. YAML forbids repeated keys,
// but real files have them (GitLab CI's hidden jobs, hand-merged values) and
// the tools that read them disagree: kubectl rejects the object, Helm and
// GitLab keep the last value, compose fails. Only the image keys among them
// matter here (see walk): the rest of the file is scanned as usual, so one
// repeated key elsewhere never hides the file's references.
func duplicated(m *kyaml.Node) map[string]int {
	if len(m.Content) < 4 {
		return nil
	}
	var dups map[string]int
	first := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		// `<<` merges may repeat (one per merged map in some files), and a
		// key that is itself a collection is too rare to compare.
		k := m.Content[i]
		if k.Kind != kyaml.ScalarNode || k.Value == "<<" {
			continue
		}
		id := k.ShortTag() + "\x00" + k.Value
		if line, ok := first[id]; ok {
			if dups == nil {
				dups = map[string]int{}
			}
			if _, seen := dups[k.Value]; !seen {
				dups[k.Value] = line
			}
			continue
		}
		first[id] = k.Line
	}
	return dups
}

// ambiguous records a value under a repeated image key: which of the two
// counts depends on the tool that reads the file, so neither is edited.
func (w *walker) ambiguous(k, v *kyaml.Node, firstLine int) {
	w.skip(w.at(v), KindImage, nodeText(v), fmt.Sprintf("key %s appears twice in one mapping (first on line %d): which one counts depends on the tool reading the file; remove one", quote(k.Value), firstLine))
}

// nodeText is what a value says, for a message: a scalar's text, or its kind.
func nodeText(v *kyaml.Node) string {
	if v.Kind == kyaml.ScalarNode {
		return v.Value
	}
	return "(" + v.ShortTag() + ")"
}
