package scan

import (
	"fmt"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// argoSpec takes an Argo CD Application spec (or an ApplicationSet's
// template spec): its source and each of its sources.
func (w *walker) argoSpec(spec *kyaml.Node) {
	if s := child(spec, "source"); s != nil && s.Kind == kyaml.MappingNode {
		w.argoSource(s)
	}
	if ss := child(spec, "sources"); ss != nil && ss.Kind == kyaml.SequenceNode {
		for _, s := range ss.Content {
			if s.Kind == kyaml.MappingNode {
				w.argoSource(s)
			}
		}
	}
}

// argoSource takes one source: a chart version (chart + targetRevision +
// repoURL), and the images written inside it (kustomize.images strings,
// helm.parameters, a helm.values block string).
func (w *walker) argoSource(s *kyaml.Node) {
	repo, rev := mapValue(s, "repoURL"), mapValue(s, "targetRevision")
	switch chart := mapValue(s, "chart"); {
	case chart != nil && hasValue(chart):
		w.argoChart(chart, repo, rev)
	case repo != nil && hasValue(repo):
		w.argoGit(repo, rev) // gitsource.go
	}
	helm := child(s, "helm")
	if ps := child(helm, "parameters"); ps != nil && ps.Kind == kyaml.SequenceNode {
		w.helmParameters(ps)
	}
	if v := child(helm, "values"); v != nil && v.Kind == kyaml.ScalarNode {
		w.blockValues(v)
	}
	if is := childPath(s, "kustomize", "images"); is != nil && is.Kind == kyaml.SequenceNode {
		for _, e := range is.Content {
			w.kustomizeString(e)
		}
	}
}

func (w *walker) argoChart(chart, repo, rev *kyaml.Node) {
	c := Chart{Name: chart.Value}
	if repo == nil || !hasValue(repo) {
		w.chartSkip(chart, KindArgoCD, c, chart.Value, SkipInvalid, "chart: without repoURL")
		return
	}
	if !isVariable(repo.Value) {
		r, cred, err := chartRepository(repo.Value, true)
		if err != nil {
			shown, _ := stripUserinfo(repo.Value)
			w.chartSkip(repo, KindArgoCD, c, shown, SkipInvalid, err.Error())
			return
		}
		c.Repository, c.Credentials = r, cred
	} else {
		c.Repository = scrub(repo.Value) // a placeholder: chartVersion skips it as a variable
	}
	w.chartVersion(KindArgoCD, c, rev, chart, "no targetRevision: Argo CD installs the newest")
}

// kustomizeString takes an Argo CD kustomize image override, written as
// `kustomize edit set image` takes it: "nginx:1.25.3", "nginx=nginx:1.25.3",
// "name=ghcr.io/a/b:1.2@sha256:...". The new name (after '=') is looked
// up; the tag and digest bytes inside the string are the spans.
func (w *walker) kustomizeString(e *kyaml.Node) {
	if e.Kind != kyaml.ScalarNode || w.seen[e] || !hasValue(e) {
		return
	}
	w.seen[e] = true
	val, off := e.Value, 0
	if i := strings.IndexByte(val, '='); i >= 0 {
		val, off = val[i+1:], i+1
	}
	p, err := parseRef(val)
	if err != nil {
		w.skip(w.at(e), KindKustomize, e.Value, err.Error())
		return
	}
	if p.tagStart < 0 && p.digestStart < 0 {
		return // a rename only: the manifests' own tags apply
	}
	span, ok := w.span(e)
	if !ok {
		w.problem(e, "cannot locate %s in the file's bytes; left untouched", quote(e.Value))
		return
	}
	r := Ref{Location: w.at(e), Kind: KindKustomize, Name: p.name, Repo: p.repo, Tag: p.tag, Digest: p.digest}
	r.TagField, r.DigestField = stringFields(Span{span.Start + off, span.End}, p)
	w.add(r)
}

// helmParameters takes Argo CD helm.parameters, which set values by path:
// {name: image.tag, value: 1.2.3} beside {name: image.repository} (and
// image.registry, image.digest), under any prefix (controller.image.tag);
// a parameter named image (or *.image) holds a whole reference. The parts
// are read as a Helm image map, so every rule of values files applies.
func (w *walker) helmParameters(ps *kyaml.Node) {
	byName := map[string]*kyaml.Node{}
	var order []string
	for _, p := range ps.Content {
		n, v := mapValue(p, "name"), mapValue(p, "value")
		if n == nil || v == nil || !hasValue(n) {
			continue
		}
		if _, dup := byName[n.Value]; !dup {
			order = append(order, n.Value)
		}
		byName[n.Value] = v
	}
	for _, name := range order {
		prefix, isTag := strings.CutSuffix(name, "tag")
		switch {
		case isTag && (prefix == "" || strings.HasSuffix(prefix, ".")):
			m := &kyaml.Node{Kind: kyaml.MappingNode, Line: byName[name].Line, Column: byName[name].Column}
			for _, part := range []string{"registry", "repository", "tag", "digest"} {
				if v, ok := byName[prefix+part]; ok {
					m.Content = append(m.Content, &kyaml.Node{Kind: kyaml.ScalarNode, Value: part}, v)
				}
			}
			if mapValue(m, "repository") != nil {
				w.helm(m)
			}
		case name == "image" || strings.HasSuffix(name, ".image"):
			w.refString(byName[name], KindImage)
		}
	}
}

// blockValues takes Helm values written as a YAML document inside a
// string (`values: |`): the inner document is scanned as a values file,
// and what it finds is placed back at the bytes of the outer file. Only a
// literal block scalar (|, |-, |+) is written: its lines are the inner
// document's lines, shifted right by the block's indentation. A folded or
// quoted string, whose bytes are not its lines, is read and its images
// noticed (stringValues).
func (w *walker) blockValues(v *kyaml.Node) {
	if !strings.Contains(v.Value, "image") {
		return
	}
	if v.Style&kyaml.LiteralStyle == 0 {
		w.stringValues(v)
		return
	}
	b, ok := w.block(v)
	if !ok {
		w.problem(v, "cannot map the values block's lines to the file's bytes; images in it are left untouched")
		return
	}
	docs, _, err := parse([]byte(b.text))
	if err != nil {
		w.problem(v, "the values block is not valid YAML, images in it are left untouched: %v", err)
		return
	}
	w.splice(v, b, w.innerWalk(b, docs))
}

// stringValues takes Helm values written as a folded (>, >-) or quoted
// string: its value is the document Argo CD hands Helm, scanned as a
// values file, but its bytes are not that document's lines (folding joins
// them, quotes escape them), so nothing in it can be written back. Each
// image found is a notice at the string, naming it, so that none goes
// unaccounted for; what the scan of the document notices or finds wrong
// is said at the string too.
func (w *walker) stringValues(v *kyaml.Node) {
	docs, _, err := parse([]byte(v.Value))
	if err != nil {
		w.problem(v, "the values string is not valid YAML, images in it are left untouched: %v", err)
		return
	}
	inner := &walker{file: w.file, lines: newLines([]byte(v.Value)), seen: map[*kyaml.Node]bool{}}
	for _, d := range docs {
		inner.walk(d)
	}
	at := w.at(v)
	style := "a quoted string"
	if v.Style&kyaml.FoldedStyle != 0 {
		style = "a folded string (>)"
	}
	for _, r := range inner.refs {
		w.skipped = append(w.skipped, Skipped{
			Location: at, Kind: r.Kind, Value: clip(r.String()), Image: r.Name, Reason: SkipFolded,
			Detail: fmt.Sprintf("helm.values is %s, whose bytes are not its lines, so imagebot cannot write %s there; "+
				"write the values as a literal block (values: |) or as helm.valuesObject to have it updated", style, quote(clip(r.String()))),
		})
	}
	for _, s := range inner.skipped {
		s.Location = at
		w.skipped = append(w.skipped, s)
	}
	for _, p := range inner.problems {
		p.Location = at
		w.problems = append(w.problems, p)
	}
}

// block is a literal block scalar's content with, for each of its lines,
// where that line starts in the outer file.
type block struct {
	text   string
	line   int   // the outer line of the inner document's first line
	indent int   // columns of indentation stripped from each line
	starts []int // inner line start offset -> outer offset (per inner line)
	inner  []int // inner line start offsets
}

// block rebuilds v's content from the file's lines, and returns it only
// when it spells v's value (up to the trailing breaks that chomping
// decides), so that every inner offset maps to the outer byte it came from.
func (w *walker) block(v *kyaml.Node) (block, bool) {
	l := w.lines
	hdr := w.offset(v)
	if hdr < 0 || hdr >= len(l.src) || l.src[hdr] != '|' {
		return block{}, false
	}
	b := block{line: v.Line + 1, indent: -1}
	var text strings.Builder
	for n := v.Line + 1; n <= len(l.starts); n++ {
		start, end := l.starts[n-1], l.end(n)
		line := string(l.src[start:end])
		body := strings.TrimLeft(line, " ")
		if body == "" { // an empty line; spaces beyond the indentation are content
			b.inner, b.starts = append(b.inner, text.Len()), append(b.starts, start)
			if b.indent >= 0 && len(line) > b.indent {
				text.WriteString(line[b.indent:])
			}
			text.WriteByte('\n')
			continue
		}
		ind := len(line) - len(body)
		if b.indent < 0 {
			b.indent = ind
		}
		if ind < b.indent || b.indent == 0 {
			break
		}
		b.inner, b.starts = append(b.inner, text.Len()), append(b.starts, start+b.indent)
		text.WriteString(line[b.indent:])
		text.WriteByte('\n')
	}
	b.text = text.String()
	if strings.TrimRight(b.text, "\n") != strings.TrimRight(v.Value, "\n") {
		return block{}, false
	}
	return b, true
}

// offset maps an inner byte offset to the outer file's.
func (b block) offset(off int) int {
	i := len(b.inner) - 1
	for i > 0 && b.inner[i] > off {
		i--
	}
	return b.starts[i] + off - b.inner[i]
}

func (b block) location(l Location) Location {
	l.Line += b.line - 1
	if l.Col > 0 {
		l.Col += b.indent
	}
	return l
}

// field maps an inner field to the outer file. An insertion of a new line
// (a digest: key) would need the block's indentation and the file's line
// ends: it is not offered inside a block.
func (b block) field(f Field) Field {
	if !f.OK {
		return f
	}
	if strings.ContainsAny(f.Prefix, "\n\r") {
		return Field{}
	}
	f.Span = Span{b.offset(f.Span.Start), b.offset(f.Span.End)}
	return f
}
