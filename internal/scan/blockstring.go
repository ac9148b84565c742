package scan

import (
	"fmt"
	"regexp"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// splice places what inner found in the literal block string v (whose
// lines b maps to the file's bytes) back at the bytes of the outer file:
// the inner tag bytes are the outer file's, so a rewrite changes only them.
func (w *walker) splice(v *kyaml.Node, b block, inner *walker) {
	w.seen[v] = true
	for _, r := range inner.refs {
		r.Location = b.location(r.Location)
		r.TagField, r.DigestField = b.field(r.TagField), b.field(r.DigestField)
		w.refs = append(w.refs, r)
	}
	for _, s := range inner.skipped {
		s.Location = b.location(s.Location)
		w.skipped = append(w.skipped, s)
	}
	for _, p := range inner.problems {
		p.Location = b.location(p.Location)
		w.problems = append(w.problems, p)
	}
}

// innerWalk scans the YAML documents docs, parsed from block b's text, as
// a file of their own.
func (w *walker) innerWalk(b block, docs []*kyaml.Node) *walker {
	inner := &walker{file: w.file, lines: newLines([]byte(b.text)), seen: map[*kyaml.Node]bool{}, depth: w.depth + 1}
	for _, d := range docs {
		inner.walk(d)
	}
	return inner
}

// blockString reads YAML written inside any literal block string (a
// ConfigMap's `podspec.yaml: |-`, a values string holding a manifest), as
// Argo CD's helm.values are read. Most block strings are no YAML (scripts,
// configuration files, prose): one that does not parse, that is no
// mapping or list, or that holds no reference, is left alone without a
// word, unlike helm.values, which must be YAML.
func (w *walker) blockString(v *kyaml.Node) { w.innerYAML(v, false) }

// blockFile reads a block string under a key that names a YAML file
// (a ConfigMap's `podspec.yaml: |-`): meant as YAML, so one that holds
// what may be images and does not parse is a problem at its line, as
// helm.values are, rather than passed over.
func (w *walker) blockFile(v *kyaml.Node) { w.innerYAML(v, true) }

func (w *walker) innerYAML(v *kyaml.Node, strict bool) {
	// Each level of nesting parses its text again: a few levels are what
	// real files hold, and the bound keeps a hostile nest linear.
	if w.seen[v] || w.depth >= maxBlockDepth || v.Kind != kyaml.ScalarNode || v.Style&kyaml.LiteralStyle == 0 || !mayHold([]byte(v.Value)) {
		return
	}
	b, ok := w.block(v)
	if !ok {
		return
	}
	docs, read, err := parse([]byte(b.text))
	if err != nil && strict {
		// At the inner line to fix; not an ErrSyntax, which would hold
		// back the edits of the rest of the file.
		w.seen[v] = true
		p := syntaxError(w.file, []byte(b.text), err, read)
		p.Location = b.location(p.Location)
		p.Err = fmt.Errorf("the block string under the key above is not valid YAML, images in it are left untouched: %s", strings.TrimPrefix(p.Err.Error(), ErrSyntax.Error()+": "))
		w.problems = append(w.problems, p)
		return
	}
	if err != nil || !collections(docs) {
		return
	}
	inner := w.innerWalk(b, docs)
	if len(inner.refs) == 0 && len(inner.skipped) == 0 {
		return
	}
	w.splice(v, b, inner)
}

// maxBlockDepth is how deep block strings inside block strings are read.
const maxBlockDepth = 3

// collections reports whether every document is a mapping or a list: a
// script or a sentence parses as one plain scalar.
func collections(docs []*kyaml.Node) bool {
	for _, d := range docs {
		if d.Kind == kyaml.DocumentNode && len(d.Content) > 0 {
			d = d.Content[0]
		}
		if d.Kind != kyaml.MappingNode && d.Kind != kyaml.SequenceNode {
			return false
		}
	}
	return len(docs) > 0
}

// keyRE is a key as configuration writes one: no spaces, so that a
// script line (`echo image: nginx:1.0.0`) read as YAML names no image.
var keyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// yamlName reports whether a key names a YAML file.
func yamlName(k string) bool {
	return (strings.HasSuffix(k, ".yaml") || strings.HasSuffix(k, ".yml")) && keyRE.MatchString(k)
}
