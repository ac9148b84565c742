package scan

import (
	"fmt"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// duplicates records the first key that a mapping holds twice. YAML forbids
// it, and the tools that read manifests disagree about it: kubectl rejects
// the object, Helm keeps the last value, compose fails. Editing either
// value could change nothing that runs, so the file is left alone.
func (w *walker) duplicates(m *kyaml.Node) {
	if w.duplicate != nil || len(m.Content) < 4 {
		return
	}
	var keys []*kyaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		// `<<` merges may repeat (one per merged map in some files), and a
		// key that is itself a collection is too rare to compare.
		if k := m.Content[i]; k.Kind == kyaml.ScalarNode && k.Value != "<<" {
			keys = append(keys, k)
		}
	}
	prev, k := firstDuplicate(keys)
	if k == nil {
		return
	}
	w.duplicate = &Problem{Location: w.at(k), Err: fmt.Errorf("%w: key %s appears twice in one mapping (first on line %d); remove one", ErrSyntax, quote(k.Value), prev.Line)}
}

// firstDuplicate returns the first key equal to an earlier one, and that
// one. Most mappings are small: they are compared pairwise, without a map.
func firstDuplicate(keys []*kyaml.Node) (prev, dup *kyaml.Node) {
	same := func(a, b *kyaml.Node) bool { return a.Value == b.Value && a.ShortTag() == b.ShortTag() }
	if len(keys) <= 8 {
		for i, k := range keys {
			for _, p := range keys[:i] {
				if same(p, k) {
					return p, k
				}
			}
		}
		return nil, nil
	}
	type key struct{ tag, value string }
	first := make(map[key]*kyaml.Node, len(keys))
	for _, k := range keys {
		id := key{k.ShortTag(), k.Value}
		if p, ok := first[id]; ok {
			return p, k
		}
		first[id] = k
	}
	return nil, nil
}
