package scan

import (
	"fmt"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
)

type walker struct {
	file  string
	lines *lines
	// seen holds the nodes already taken (a scalar as a reference, a map as
	// a Helm image): a value shared through an anchor is one location, and
	// a thousand aliases of one big map cost one look at it.
	seen     map[*kyaml.Node]bool
	refs     []Ref
	skipped  []Skipped
	problems []Problem
	// Chart versions, and what resolving a HelmRelease's source needs.
	charts    []Ref
	sources   []fluxSource
	chartRefs []chartRef
	unnamed   []unnamedSkip
	// notes are the `# renovate:` annotations by the line they stand
	// on, read on first use (annotation.go).
	notes map[int]string
	// template is set for a file read with its template syntax left out:
	// a key repeated there is one per branch of an {{ if }}/{{ else }},
	// each a value of its own, not an ambiguity.
	template bool
	depth    int // block strings this walk is inside (blockstring.go)
}

func (w *walker) at(n *kyaml.Node) Location {
	return Location{File: w.file, Line: n.Line, Col: n.Column}
}

func (w *walker) problem(n *kyaml.Node, format string, args ...any) {
	w.problems = append(w.problems, Problem{Location: w.at(n), Err: fmt.Errorf(format, args...)})
}

// walk visits every node once. Aliases are not followed: the anchored node
// is visited where it is defined, so a value shared through `*alias` or a
// `<<:` merge is one location, edited once.
func (w *walker) walk(n *kyaml.Node) {
	switch n.Kind {
	case kyaml.DocumentNode, kyaml.SequenceNode:
		for _, c := range n.Content {
			w.scalar(c)
			w.walk(c)
		}
	case kyaml.MappingNode:
		var dups map[string]int
		if !w.template {
			dups = duplicated(n)
		}
		w.mapImage(n)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch first, dup := dups[k.Value]; {
			case (k.Value == "image" || k.Value == "images") && dup:
				w.ambiguous(k, v, first)
				continue
			case k.Value == "image":
				w.image(v)
			case k.Value == "images":
				w.kustomizeImages(v)
			case imageKey(k.Value) && !dup:
				w.keyedImage(v)
			case yamlName(k.Value):
				w.blockFile(v)
			}
			w.scalar(v)
			w.walk(v)
		}
	}
}

// image handles the value of an `image:` key: a reference string, or a
// Helm-style map.
func (w *walker) image(v *kyaml.Node) {
	if v.Kind == kyaml.AliasNode && v.Alias != nil {
		v = v.Alias // `image: *img` edits the anchored value, once
	}
	switch v.Kind {
	case kyaml.ScalarNode:
		w.refString(v, KindImage)
	case kyaml.MappingNode:
		w.helm(v)
	}
}

// refString takes a scalar holding a whole reference ("nginx:1.25@sha256:...").
func (w *walker) refString(v *kyaml.Node, kind Kind) {
	if w.seen[v] || !hasValue(v) {
		return
	}
	w.seen[v] = true
	p, err := parseRef(v.Value)
	if err != nil {
		w.skip(w.at(v), kind, v.Value, err.Error())
		return
	}
	span, ok := w.span(v)
	if !ok {
		w.problem(v, "cannot locate %s in the file's bytes (escaped or multi-line scalar); left untouched", quote(v.Value))
		return
	}
	ref := Ref{
		Location: w.at(v),
		Kind:     kind,
		Name:     p.name,
		Repo:     p.repo,
		Tag:      p.tag,
		Digest:   p.digest,
	}
	ref.TagField, ref.DigestField = stringFields(span, p)
	w.add(ref)
}

// stringFields places the tag and digest inside a reference string. An
// absent part is an insertion point after the name (tag) or the tag (digest).
func stringFields(span Span, p parsed) (tag, digest Field) {
	end := span.Start + len(p.name)
	tag = Field{Span: Span{end, end}, Prefix: ":", OK: true}
	if p.tagStart >= 0 {
		end = span.Start + p.tagStart + len(p.tag)
		tag.Span = Span{span.Start + p.tagStart, end}
	}
	digest = Field{Span: Span{end, end}, Prefix: "@", OK: true}
	if p.digestStart >= 0 {
		digest.Span = Span{span.Start + p.digestStart, span.End}
	}
	return tag, digest
}

// add keeps a reference whose name was parsed (r.Repo).
func (w *walker) add(r Ref) {
	r.Image = imagename.String(r.Repo)
	w.refs = append(w.refs, r)
}

// offset is where a node's text starts in the file (the opening quote for a
// quoted scalar), or -1.
func (w *walker) offset(n *kyaml.Node) int { return w.lines.offset(n.Line, n.Column) }

// span returns the bytes of a scalar's value, inside any quotes, and checks
// that they spell exactly the parsed value. A scalar whose text differs from
// its value (escapes, folding over lines) is never edited.
func (w *walker) span(n *kyaml.Node) (Span, bool) {
	off := w.offset(n)
	if off < 0 {
		return Span{}, false
	}
	src, val := w.lines.src, n.Value
	// yaml.v3 places a node at its anchor (&name) or tag (!!str) when it has
	// one; the value follows after white space.
	for off < len(src) && (src[off] == '&' || src[off] == '!') {
		for off < len(src) && !isSpace(src[off]) {
			off++
		}
		for off < len(src) && isSpace(src[off]) {
			off++
		}
	}
	var quote string
	switch n.Style &^ kyaml.TaggedStyle {
	case 0:
	case kyaml.DoubleQuotedStyle:
		quote = `"`
	case kyaml.SingleQuotedStyle:
		quote = `'`
	default: // literal and folded block scalars
		return Span{}, false
	}
	end := off + len(quote) + len(val) + len(quote)
	if end > len(src) || string(src[off:off+len(quote)]) != quote ||
		string(src[off+len(quote):end-len(quote)]) != val || string(src[end-len(quote):end]) != quote {
		return Span{}, false
	}
	return Span{off + len(quote), off + len(quote) + len(val)}, true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// hasValue reports whether a scalar holds something that may be a
// reference: not empty and not a YAML null (`image:`, `image: ~`,
// `image: null`), which say "no image here" rather than a bad one.
func hasValue(n *kyaml.Node) bool {
	return n.Kind == kyaml.ScalarNode && n.Value != "" && n.ShortTag() != kyaml.NodeTagNull
}
