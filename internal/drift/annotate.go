package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// RestartAnnotation is the pod template annotation a restart pull request
// sets: changing it makes the workload's controller roll its pods, which
// pull the tag again (with imagePullPolicy: Always, or on nodes without
// the image). Its value is the digest the pods should run afterwards, so
// that a rerun writes the same bytes and a newer build writes new ones.
const RestartAnnotation = "imagebot.io/restartedAt"

// SetTemplateAnnotation sets key to value in the pod template annotations
// of the workload whose manifest holds line (1-based) of data, touching
// no other byte: the value is replaced where the key exists, else a line
// is inserted, with the indentation and line ends of its neighbours (and
// annotations:, metadata: around it where they are missing). Only block
// style is edited; a flow mapping ({...}) on the way is an error, as is a
// document that holds no pod template.
func SetTemplateAnnotation(data []byte, line int, key, val string) ([]byte, error) {
	root, err := documentAt(data, line)
	if err != nil {
		return nil, err
	}
	tmpl := child(child(root, "spec"), "template")
	if value(root, "kind") == "CronJob" {
		tmpl = child(child(child(child(root, "spec"), "jobTemplate"), "spec"), "template")
	}
	if !block(tmpl) {
		return nil, errors.New("no pod template in block style (spec.template) in the manifest")
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	entry := fmt.Sprintf("%s: %q", key, val)
	meta := child(tmpl, "metadata")
	if meta == nil {
		return insertBefore(data, tmpl.Content[0], []string{"metadata:", "  annotations:", "    " + entry}, nl)
	}
	if !block(meta) {
		return nil, errors.New("the pod template's metadata is not a block mapping")
	}
	ann := child(meta, "annotations")
	if ann == nil {
		return insertBefore(data, meta.Content[0], []string{"annotations:", "  " + entry}, nl)
	}
	if !block(ann) {
		return nil, errors.New("the pod template's annotations are not a block mapping: write them one per line")
	}
	if v := child(ann, key); v != nil {
		return replaceScalar(data, v, fmt.Sprintf("%q", val))
	}
	return insertBefore(data, ann.Content[0], []string{entry}, nl)
}

// documentAt is the top-level mapping of the last document that starts at
// or before line.
func documentAt(data []byte, line int) (*yaml.Node, error) {
	var found *yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode || doc.Content[0].Line > line {
			if found != nil && len(doc.Content) > 0 && doc.Content[0].Line > line {
				break
			}
			continue
		}
		found = doc.Content[0]
	}
	if found == nil {
		return nil, fmt.Errorf("no manifest at line %d", line)
	}
	return found, nil
}

func block(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 && len(n.Content) > 0
}

// lineStart is the byte offset of the start of 1-based line n.
func lineStart(data []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return len(data)
		}
		off += j + 1
	}
	return off
}

// insertBefore inserts lines before the line of key, each indented as
// key is; key must start its line.
func insertBefore(data []byte, key *yaml.Node, lines []string, nl string) ([]byte, error) {
	start := lineStart(data, key.Line)
	indent := key.Column - 1
	if start+indent > len(data) || strings.TrimLeft(string(data[start:start+indent]), " ") != "" {
		return nil, fmt.Errorf("line %d: the mapping does not start its line", key.Line)
	}
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(pad + l + nl)
	}
	out := make([]byte, 0, len(data)+b.Len())
	out = append(out, data[:start]...)
	out = append(out, b.String()...)
	return append(out, data[start:]...), nil
}

// replaceScalar replaces the scalar v's bytes (plain, or quoted either
// way) with text.
func replaceScalar(data []byte, v *yaml.Node, text string) ([]byte, error) {
	if v.Kind != yaml.ScalarNode {
		return nil, errors.New("the annotation's value is not a scalar")
	}
	start := lineStart(data, v.Line) + v.Column - 1
	end := len(data)
	if i := bytes.IndexAny(data[start:], "\r\n"); i >= 0 {
		end = start + i
	}
	rest := string(data[start:end])
	n := len(rest)
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		n = closing(rest, '"')
	case v.Style&yaml.SingleQuotedStyle != 0:
		n = closing(rest, '\'')
	case v.Style != 0:
		return nil, errors.New("the annotation's value is a block scalar")
	default:
		if i := strings.Index(rest, " #"); i >= 0 {
			n = i
		}
		n = len(strings.TrimRight(rest[:n], " \t"))
	}
	if n < 0 {
		return nil, errors.New("the annotation's value spans several lines")
	}
	out := append([]byte{}, data[:start]...)
	out = append(out, text...)
	return append(out, data[start+n:]...), nil
}

// closing is the length of the quoted scalar at the start of s, closing
// quote included; -1 when it does not end on this line.
func closing(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return -1
}
