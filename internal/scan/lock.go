package scan

import (
	"errors"
	"fmt"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Lock is what a Chart.lock (requirements.lock for apiVersion v1) holds
// that a change of a dependency's version must keep consistent: each
// locked version and the digest, with their spans in the file's bytes.
type Lock struct {
	Dependencies []Locked
	Digest       string
	DigestField  Field
}

// Locked is one entry of a lock's dependencies, in Chart.yaml's order.
type Locked struct {
	Name, Repository, Version string
	Field                     Field // the version's bytes
}

// ReadLock finds the spans of a Chart.lock's versions and digest. It
// fails on a lock that is not valid YAML, or whose digest or versions are
// not plain one-line strings in the file.
func ReadLock(src []byte) (Lock, error) {
	if p := encoding("Chart.lock", src); p != nil {
		return Lock{}, p
	}
	docs, _, err := parse(src)
	if err != nil {
		return Lock{}, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if len(docs) != 1 || len(docs[0].Content) == 0 {
		return Lock{}, errors.New("not one YAML document")
	}
	w := &walker{file: "Chart.lock", lines: newLines(src), seen: map[*kyaml.Node]bool{}}
	top := docs[0].Content[0]
	var l Lock
	d := mapValue(top, "digest")
	if d == nil || !hasValue(d) {
		return Lock{}, errors.New("no digest")
	}
	span, ok := w.span(d)
	if !ok {
		return Lock{}, fmt.Errorf("cannot locate digest %s in the file's bytes", quote(d.Value))
	}
	l.Digest, l.DigestField = d.Value, Field{Span: span, OK: true, Scalar: d.Style == 0}
	deps := child(top, "dependencies")
	if deps == nil || deps.Kind != kyaml.SequenceNode {
		return l, nil
	}
	for _, e := range deps.Content {
		v := mapValue(e, "version")
		var f Field
		if v != nil && hasValue(v) {
			if span, ok := w.span(v); ok {
				f = Field{Span: span, OK: true, Scalar: v.Style == 0}
			}
		}
		locked := Locked{Name: str(e, "name"), Repository: str(e, "repository"), Field: f}
		if v != nil {
			locked.Version = v.Value
		}
		l.Dependencies = append(l.Dependencies, locked)
	}
	return l, nil
}
