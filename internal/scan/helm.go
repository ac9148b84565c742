package scan

import (
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// mapValue returns the scalar value of key in a mapping, following an alias.
func mapValue(m *kyaml.Node, key string) *kyaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == kyaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind == kyaml.ScalarNode {
				return v
			}
			return nil
		}
	}
	return nil
}

// helm takes a Helm-style values map: image: {registry?, repository, tag,
// digest?}; some charts say name where others say repository.
func (w *walker) helm(m *kyaml.Node) {
	repo, tag := mapValue(m, "repository"), mapValue(m, "tag")
	if repo == nil {
		repo = mapValue(m, "name") // image: {name: ghcr.io/acme/api, tag: v1.2.3}
	}
	if repo == nil || tag == nil || !isString(repo) || !isString(tag) || w.seen[tag] {
		return
	}
	img := repo.Value
	if reg := mapValue(m, "registry"); reg != nil && reg.Value != "" {
		img = strings.TrimSuffix(reg.Value, "/") + "/" + img
	}
	if _, err := name.NewRepository(img); err != nil {
		return
	}
	span, ok := w.span(tag)
	if !ok {
		w.problem(tag, "cannot locate tag %q in the file's bytes; left untouched", tag.Value)
		return
	}
	// Some charts write `tag: 1.2.3@sha256:...`: parse it as a reference tail.
	p, err := parseRef("x:" + tag.Value)
	if err != nil {
		return
	}
	w.seen[tag] = true
	ref := Ref{
		Location: Location{File: w.file, Line: tag.Line, Col: tag.Column},
		Kind:     KindHelm,
		Name:     img,
		Tag:      p.tag,
		Digest:   p.digest,
	}
	shifted := Span{span.Start - 2, span.End} // account for the "x:" we put in front
	ref.TagField, ref.DigestField = stringFields(shifted, p)
	if p.digest == "" {
		ref.TagField = Field{Span: span, OK: true, Scalar: tag.Style == 0}
		ref.DigestField = w.digestKey(m)
		if d := mapValue(m, "digest"); d != nil && ref.DigestField.OK {
			ref.Digest = d.Value
		}
	}
	w.add(ref)
}

// digestKey is the field of a `digest:` key beside the tag, when there is one.
func (w *walker) digestKey(m *kyaml.Node) Field {
	d := mapValue(m, "digest")
	if d == nil {
		return Field{}
	}
	span, ok := w.span(d)
	if !ok && d.Value == "" && d.Style == 0 {
		// `digest:` with nothing after it: a null we may fill in.
		if off := w.offset(d); off >= 0 {
			return Field{Span: Span{off, off}, Prefix: "", OK: true}
		}
	}
	return Field{Span: span, OK: ok, Scalar: d.Style == 0}
}
