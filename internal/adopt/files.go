package adopt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/safefs"
	"github.com/imagebot/imagebot/internal/scan"
)

// maxFile is the largest file read for Flux objects or a Renovate config,
// the scan's own default cap; a larger one is named in a note and skipped,
// so init ends in bounded memory whatever the repository holds.
const maxFile = scan.DefaultMaxFileSize

// yamlFiles calls f with every *.yaml and *.yml file of fsys (never inside
// .git) whose bytes contain any of the screens: a cheap test before
// parsing, as Flux's own ScreeningLocalReader does.
func yamlFiles(ctx context.Context, fsys fs.FS, ns *notes, screens []string, f func(file string, src []byte)) error {
	return fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if ext := path.Ext(p); ext != ".yaml" && ext != ".yml" || !e.Type().IsRegular() {
			return nil
		}
		src, err := readCapped(fsys, p)
		if err != nil {
			ns.add(p, 0, "not read: %v", err)
			return nil
		}
		for _, s := range screens {
			if bytes.Contains(src, []byte(s)) {
				f(p, src)
				return nil
			}
		}
		return nil
	})
}

var errTooLarge = fmt.Errorf("larger than %d MiB", maxFile>>20)

// readCapped reads a regular file of fsys, at most maxFile bytes of it; a
// named pipe is refused before it is opened, so it cannot block init.
func readCapped(fsys fs.FS, name string) ([]byte, error) {
	src, err := safefs.ReadFS(fsys, name, maxFile)
	var tl *safefs.TooLargeError
	if errors.As(err, &tl) {
		return nil, errTooLarge
	}
	return src, err
}

// documents parses every YAML document of src. A document that does not
// parse ends the file with a note: what follows cannot be trusted.
func documents(file string, src []byte, ns *notes) []*yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			ns.add(file, 0, "not valid YAML, not read: %s", strings.TrimPrefix(err.Error(), "yaml: "))
			return docs
		}
		if len(n.Content) == 1 && n.Content[0].Kind == yaml.MappingNode {
			docs = append(docs, n.Content[0])
		}
	}
}

// get follows keys through nested mappings; nil when any is missing.
func get(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// scalar is the value at keys, "" when absent or not a scalar.
func scalar(n *yaml.Node, keys ...string) string {
	v := get(n, keys...)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}
