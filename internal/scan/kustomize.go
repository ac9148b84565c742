package scan

import (
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomizeImages takes a kustomization's `images:` list (also found under a
// Flux Kustomization's spec): entries {name, newName?, newTag?, digest?}.
// The lookup uses newName when set, as kustomize itself would.
func (w *walker) kustomizeImages(v *kyaml.Node) {
	if v.Kind != kyaml.SequenceNode {
		return
	}
	for _, e := range v.Content {
		if e.Kind != kyaml.MappingNode || mapValue(e, "name") == nil {
			continue
		}
		w.kustomizeEntry(e)
	}
}

func (w *walker) kustomizeEntry(e *kyaml.Node) {
	img := mapValue(e, "name").Value
	if nn := mapValue(e, "newName"); nn != nil && hasValue(nn) {
		img = nn.Value
	}
	tag, dig := mapValue(e, "newTag"), mapValue(e, "digest")
	if tag != nil && !hasValue(tag) {
		tag = nil
	}
	if dig != nil && !hasValue(dig) {
		dig = nil
	}
	if tag == nil && dig == nil {
		return // nothing pinned here: the manifests' own tags apply
	}
	at := tag
	if at == nil {
		at = dig
	}
	if w.seen[at] {
		return
	}
	w.seen[at] = true
	repo, err := checkEntry(img, tag, dig)
	if err != nil {
		w.skip(w.at(at), KindKustomize, entryValue(img, tag, dig), err.Error())
		return
	}
	ref := Ref{Location: w.at(at), Kind: KindKustomize, Name: img, Repo: repo}
	if tag != nil {
		span, ok := w.span(tag)
		if !ok {
			w.problem(tag, "cannot locate newTag %s in the file's bytes; left untouched", quote(tag.Value))
			return
		}
		ref.Tag = tag.Value
		ref.TagField = Field{Span: span, OK: true, Scalar: tag.Style == 0}
	}
	if dig != nil {
		ref.Digest = dig.Value
		ref.DigestField = w.digestKey(e)
	} else if e.Style&kyaml.FlowStyle == 0 {
		ref.DigestField = w.insertKeyAfter(e, "newTag", "digest")
	}
	w.add(ref)
}

// checkEntry validates each part of a kustomize entry on its own terms,
// and returns the name parsed.
func checkEntry(img string, tag, dig *kyaml.Node) (name.Repository, error) {
	repo, err := parseName(img)
	if err != nil {
		return repo, err
	}
	if tag != nil {
		if strings.ContainsAny(tag.Value, "\n\r") {
			return repo, errSeveralLines
		}
		if err := checkTag(tag.Value); err != nil {
			return repo, err
		}
	}
	if dig != nil {
		return repo, checkDigest(dig.Value)
	}
	return repo, nil
}

// entryValue spells a kustomize entry as one reference, for a notice.
func entryValue(img string, tag, dig *kyaml.Node) string {
	s := img
	if tag != nil {
		s += ":" + tag.Value
	}
	if dig != nil {
		s += "@" + dig.Value
	}
	return s
}

// insertKeyAfter returns an insertion point for a new `key: ` line after the
// line of an existing key in a block mapping, indented like that key and
// ending lines as the file does.
func (w *walker) insertKeyAfter(m *kyaml.Node, after, key string) Field {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Value != after {
			continue
		}
		off := w.offset(k)
		if off < 0 || m.Content[i+1].Line != k.Line {
			return Field{}
		}
		start := w.lines.starts[k.Line-1]
		// "  - newTag:" indents the next key by as many columns as "  - ".
		indent := strings.Repeat(" ", k.Column-1)
		if strings.ContainsRune(string(w.lines.src[start:off]), '\t') {
			return Field{}
		}
		end, eol := w.lines.lineEnd(k.Line)
		return Field{Span: Span{end, end}, Prefix: eol + indent + key + ": ", OK: true}
	}
	return Field{}
}
