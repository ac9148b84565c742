package scan

import (
	"bytes"
	"fmt"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// ErrTemplatePart marks a document of a template file that does not parse
// once its template syntax is left out (a `{{ toYaml . | nindent 4 }}` in
// place of a whole block, say): its images are not read. It is an
// ErrTemplate, as quiet as a template skipped whole used to be, and the
// file's other documents are read.
var ErrTemplatePart = fmt.Errorf("%w: this document does not parse once its template syntax is left out; its images are not read", ErrTemplate)

// templateSuffixes are YAML files behind a template engine's suffix
// (Jinja for Ansible, Go templates for Talos and home-lab configs).
var templateSuffixes = []string{".yaml.j2", ".yml.j2", ".yaml.tmpl", ".yml.tmpl", ".yaml.tpl", ".yml.tpl"}

// isTemplateFile reports whether file is YAML behind a template suffix.
func isTemplateFile(file string) bool {
	for _, s := range templateSuffixes {
		if strings.HasSuffix(file, s) {
			return true
		}
	}
	return false
}

// inTemplates reports whether file lives in a Helm chart's templates/.
func inTemplates(file string) bool {
	return strings.HasPrefix(file, "templates/") || strings.Contains(file, "/templates/")
}

// detemplate returns src with its template syntax left out, byte for
// byte, so that every offset and line of the result is the source's: a
// line that holds only template actions (`{{- if .Values.x }}`,
// `{% for %}`) and every line of an action over several lines become
// spaces; an action inside a line (`image: "{{ .Values.image }}"`)
// becomes `$(___)` of its length, a placeholder that YAML reads as a
// plain or quoted string and the scan as a variable. Line breaks stay.
func detemplate(src []byte) []byte {
	out := bytes.Clone(src)
	blank := map[int]bool{}   // line starts to blank whole
	touched := map[int]bool{} // line starts with an action inside the line
	// lineStart is the start of the line holding offset i. Offsets only
	// grow, so a cursor walks the file once: a line of a million actions
	// costs its length, not its length for each action.
	cursor, start := 0, 0
	lineStart := func(i int) int {
		for ; cursor < i; cursor++ {
			if src[cursor] == '\n' || src[cursor] == '\r' {
				start = cursor + 1
			}
		}
		return start
	}
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '{' {
			continue
		}
		var closer string
		switch src[i+1] {
		case '{':
			closer = "}}"
		case '%':
			closer = "%}"
		case '#':
			closer = "#}"
		default:
			continue
		}
		end := len(src)
		if j := bytes.Index(src[i+2:], []byte(closer)); j >= 0 {
			end = i + 2 + j + 2
		}
		if bytes.ContainsAny(src[i:end], "\r\n") {
			for k := i; k <= end && k < len(src); k++ {
				if k == i || src[k-1] == '\n' || src[k-1] == '\r' {
					blank[lineStart(k)] = true
				}
			}
		} else {
			out[i], out[i+1], out[end-1] = '$', '(', ')'
			for k := i + 2; k < end-1; k++ {
				out[k] = '_'
			}
			touched[lineStart(i)] = true
		}
		i = end - 1
	}
	// Each line is looked at once, after all its actions are replaced.
	for start := range touched {
		if onlyActions(out, start) {
			blank[start] = true
		}
	}
	for start := range blank {
		for k := start; k < len(out) && out[k] != '\n' && out[k] != '\r'; k++ {
			out[k] = ' '
		}
	}
	return out
}

// onlyActions reports whether the line at start holds nothing but
// placeholders and white space.
func onlyActions(out []byte, start int) bool {
	end := bytes.IndexAny(out[start:], "\r\n")
	if end < 0 {
		end = len(out) - start
	}
	line := out[start : start+end]
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == ' ' || line[i] == '\t':
		case line[i] == '$' && i+1 < len(line) && line[i+1] == '(':
			j := bytes.IndexByte(line[i:], ')')
			if j < 0 || strings.Trim(string(line[i+2:i+j]), "_") != "" {
				return false
			}
			i += j
		default:
			return false
		}
	}
	return true
}

// parseTemplate parses a template's text with its syntax left out
// (detemplate), document by document when the whole does not parse: a
// document that fails is a Problem (ErrTemplatePart) at its line to fix,
// and the others are read.
func parseTemplate(file string, body []byte) ([]*kyaml.Node, []Problem) {
	if docs, _, err := parse(body); err == nil {
		return docs, nil
	}
	var docs []*kyaml.Node
	var problems []Problem
	ls := newLines(body)
	from := 1 // the first line of the current document
	flush := func(to int) {
		start, end := ls.starts[from-1], len(body)
		if to < len(ls.starts) {
			end = ls.starts[to]
		}
		chunk := body[start:end]
		ds, read, err := parse(chunk)
		if err != nil {
			p := syntaxError(file, chunk, err, read)
			p.Line += from - 1
			p.Err = fmt.Errorf("%w: %s", ErrTemplatePart, strings.TrimPrefix(p.Err.Error(), ErrSyntax.Error()+": "))
			problems = append(problems, p)
			return
		}
		for _, d := range ds {
			shift(d, from-1)
		}
		docs = append(docs, ds...)
	}
	for n := 2; n <= len(ls.starts); n++ {
		l := body[ls.starts[n-1]:ls.end(n)]
		if bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t') {
			flush(n - 1)
			from = n
		}
	}
	flush(len(ls.starts))
	return docs, problems
}

// near finds v within a few lines of line (a map's parts are written
// together), or returns -1: bounded, so that many notices in a big file
// cost no search of the whole file each.
func near(ls *lines, line int, v string) int {
	from, to := max(line-8, 1), min(line+8, len(ls.starts))
	start, end := ls.starts[from-1], ls.end(to)
	if i := bytes.Index(ls.src[start:end], []byte(v)); i >= 0 {
		return start + i
	}
	return -1
}

// shift moves every node of a document parsed on its own down by lines.
func shift(n *kyaml.Node, lines int) {
	n.Line += lines
	for _, c := range n.Content {
		shift(c, lines)
	}
}

// untemplated puts the template's own text back into the notices about
// values that held template syntax, which the scan saw as placeholders:
// the value is at the notice's place, or (a notice about one part of a
// map, placed at another) first found on its line or in the file.
func untemplated(skipped []Skipped, ls *lines, src []byte) {
	for i, s := range skipped {
		v := strings.TrimSuffix(s.Value, "…")
		if !strings.Contains(v, "$(_") {
			continue
		}
		off := ls.offset(s.Line, s.Col)
		if off >= 0 && off < len(src) && (src[off] == '"' || src[off] == '\'') {
			off++
		}
		if off < 0 || off+len(v) > len(src) || string(ls.src[off:off+len(v)]) != v {
			off = near(ls, s.Line, v)
		}
		if off >= 0 {
			skipped[i].Value = clip(string(src[off : off+len(v)]))
		}
	}
}
