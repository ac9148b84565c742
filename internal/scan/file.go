package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// ErrTemplate marks a file skipped because it is a template: its YAML is
// only known after rendering, so its bytes are not ours to edit.
var ErrTemplate = errors.New("template ({{ ... }}), skipped")

// ErrSyntax marks a file that is not valid YAML. It is left untouched.
var ErrSyntax = errors.New("not valid YAML, left untouched")

// File finds the image references in one file's bytes. file is the name
// used in locations (slash-separated, relative to the repository root).
//
// A file that does not parse yields one Problem and no references; a
// template yields a Problem wrapping ErrTemplate.
func File(file string, src []byte) ([]Ref, []Problem) {
	// Cheap screen first: most files in a big repository hold no image.
	// "imagebot" (the marker) and "images" contain "image" too.
	if !bytes.Contains(src, []byte("image")) {
		return nil, nil
	}
	// A Helm or Go template is only YAML after rendering: its bytes are not
	// ours to edit. A values file that merely holds "{{ .Release.Name }}" in
	// a string is plain YAML, and is scanned like any other.
	template := bytes.Contains(src, []byte("{{"))
	if template && (strings.HasPrefix(file, "templates/") || strings.Contains(file, "/templates/")) {
		return nil, []Problem{{Location: Location{File: file, Line: 1}, Err: ErrTemplate}}
	}
	docs, err := parse(src)
	if err != nil && template {
		return nil, []Problem{{Location: Location{File: file, Line: 1}, Err: ErrTemplate}}
	}
	if err != nil {
		line, msg := syntaxError(src, err)
		return nil, []Problem{{Location: Location{File: file, Line: line}, Err: fmt.Errorf("%w: %s", ErrSyntax, msg)}}
	}
	w := &walker{file: file, lines: newLines(src), seen: map[*kyaml.Node]bool{}}
	for _, d := range docs {
		w.walk(d)
	}
	return w.refs, w.problems
}

func parse(src []byte) ([]*kyaml.Node, error) {
	dec := kyaml.NewDecoder(bytes.NewReader(src))
	var docs []*kyaml.Node
	for {
		var n kyaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError names the line of a YAML error. yaml.v3 reports the line where
// the enclosing block starts, which may be far above the mistake; the first
// line after the longest prefix of the file that still parses is where the
// mistake is. The search is bounded, as it parses the file again per step.
func syntaxError(src []byte, err error) (int, string) {
	msg, ctx := err.Error(), 1
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		ctx, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
	}
	ls := newLines(src)
	n := len(ls.starts)
	for k, steps := n-1, 0; k >= ctx && steps < 200; k, steps = k-1, steps+1 {
		if _, perr := parse(src[:ls.starts[k]]); perr == nil {
			if k+1 != ctx {
				msg += fmt.Sprintf(" (in the block that starts on line %d)", ctx)
			}
			return k + 1, msg
		}
	}
	return ctx, msg
}
