package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"go.yaml.in/yaml/v3"

	"github.com/imagebot/imagebot/internal/scan"
)

// workloadKinds are the objects whose pods a reference in their manifest
// describes. Any other object (a HelmRelease, a kustomization) names no
// workload, and its references are matched by image alone.
var workloadKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true,
	"Job": true, "CronJob": true, "Pod": true,
}

// References turns scanned image references into drift's, each with the
// workload whose manifest it stands in, read from the files in fsys (the
// tree that was scanned). Chart versions are left out. A file read again
// that no longer parses leaves its references without a workload.
func References(fsys fs.FS, refs []scan.Ref) ([]Reference, error) {
	objects := map[string][]object{}
	var out []Reference
	for _, r := range refs {
		if r.Kind.IsChart() {
			continue
		}
		objs, seen := objects[r.File]
		if !seen {
			var err error
			if objs, err = objectsIn(fsys, r.File); err != nil {
				return nil, err
			}
			objects[r.File] = objs
		}
		out = append(out, Reference{File: r.File, Line: r.Line, Repo: r.Repo, Image: r.Image,
			Tag: r.Tag, Digest: r.Digest, Workload: enclosing(objs, r.Line)})
	}
	return out, nil
}

// object is one YAML document of a file: the workload it declares (zero
// for another kind) and the line its top-level mapping starts on.
type object struct {
	line int
	wl   Workload
}

func objectsIn(fsys fs.FS, file string) ([]object, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	var objs []object
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// scan reported the file's syntax already; its references
			// are matched by image alone.
			return objs, nil
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		root := doc.Content[0]
		o := object{line: root.Line}
		if kind := value(root, "kind"); workloadKinds[kind] {
			meta := child(root, "metadata")
			o.wl = Workload{Kind: kind, Namespace: value(meta, "namespace"), Name: value(meta, "name")}
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// enclosing is the workload of the last document that starts at or
// before line.
func enclosing(objs []object, line int) Workload {
	var wl Workload
	for _, o := range objs {
		if o.line > line {
			break
		}
		wl = o.wl
	}
	return wl
}

func child(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func value(m *yaml.Node, key string) string {
	if n := child(m, key); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}
