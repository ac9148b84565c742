package rewrite

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// corpusDir finds the shared real-world corpus (../shared/corpus beside
// the repository or any folder above it, or $IMAGEBOT_CORPUS); "" when
// absent.
func corpusDir() string {
	if d := os.Getenv("IMAGEBOT_CORPUS"); d != "" {
		return d
	}
	dir, _ := os.Getwd()
	for dir != filepath.Dir(dir) {
		if fi, err := os.Stat(filepath.Join(dir, "shared", "corpus", "files")); err == nil && fi.IsDir() {
			return filepath.Join(dir, "shared", "corpus", "files")
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// TestCorpusCharts: in the real-world corpus, every chart version a chart-
// carrying object holds (its line, found here by a separate walk) is a
// chart reference or a notice of the scan, and changing every chart
// reference to a dummy version changes exactly its version bytes.
func TestCorpusCharts(t *testing.T) {
	root := corpusDir()
	if root == "" {
		t.Skip("no ../shared/corpus")
	}
	res, err := scan.Dir(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[scan.Location]bool{}
	for _, r := range res.Charts {
		found[scan.Location{File: r.File, Line: r.Line}] = true
	}
	for _, s := range res.Skipped {
		if s.Kind.IsChart() {
			found[scan.Location{File: s.File, Line: s.Line}] = true
		}
	}
	want := versionLines(t, root)
	for _, l := range want {
		if !found[l] {
			t.Errorf("%s: chart version not found by the scan", l)
		}
	}
	t.Logf("corpus: %d chart version places, %d chart references, %d left alone with a reason", len(want), len(res.Charts), len(found)-len(res.Charts))
	byFile := map[string][]plan.Change{}
	for _, r := range res.Charts {
		if r.Tag != "" {
			byFile[r.File] = append(byFile[r.File], plan.Change{Ref: r, Tag: "99.99.99"})
		}
	}
	for file, cs := range byFile {
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		out, skipped, err := Bytes(src, cs)
		if err != nil || len(skipped) > 0 {
			t.Errorf("%s: %v %v", file, err, skipped)
			continue
		}
		var edits []Edit
		for _, c := range cs {
			edits = append(edits, Edit{Span: c.Ref.TagField.Span, Text: "99.99.99"})
		}
		if want, _ := Apply(src, edits); string(out) != string(want) {
			t.Errorf("%s: bytes other than the versions changed", file)
		}
	}
}

// versionLines walks the corpus on its own and lists the line of every
// chart version the known objects hold (or of the chart, when it has no
// version).
func versionLines(t *testing.T, root string) []scan.Location {
	var out []scan.Location
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		dec := kyaml.NewDecoder(strings.NewReader(string(src)))
		for {
			var doc kyaml.Node
			if dec.Decode(&doc) != nil {
				break
			}
			for _, n := range versionNodes(rel, &doc) {
				out = append(out, scan.Location{File: rel, Line: n.Line})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func versionNodes(file string, doc *kyaml.Node) []*kyaml.Node {
	if len(doc.Content) == 0 || doc.Content[0].Kind != kyaml.MappingNode {
		return nil
	}
	top := kyaml.NewRNode(doc.Content[0])
	get := func(n *kyaml.RNode, fields ...string) *kyaml.RNode {
		v, _ := n.Pipe(kyaml.Lookup(fields...))
		return v
	}
	either := func(n *kyaml.RNode, a, b string) *kyaml.Node {
		if v := get(n, a); v != nil {
			return v.YNode()
		}
		if v := get(n, b); v != nil {
			return v.YNode()
		}
		return nil
	}
	var out []*kyaml.Node
	add := func(n *kyaml.Node) {
		if n != nil {
			out = append(out, n)
		}
	}
	each := func(seq *kyaml.RNode, f func(*kyaml.RNode)) {
		if seq == nil {
			return
		}
		elems, _ := seq.Elements()
		for _, e := range elems {
			f(e)
		}
	}
	kind, group := top.GetKind(), strings.Split(top.GetApiVersion(), "/")[0]
	switch {
	case kind == "HelmRelease" && group == "helm.toolkit.fluxcd.io":
		if cs := get(top, "spec", "chart", "spec"); cs != nil {
			add(either(cs, "version", "chart"))
		}
	case kind == "OCIRepository" && group == "source.toolkit.fluxcd.io":
		if ref := get(top, "spec", "ref"); ref != nil {
			for _, k := range []string{"digest", "semver", "tag"} {
				if v := get(ref, k); v != nil {
					add(v.YNode())
					break
				}
			}
		} else {
			add(either(top, "spec", "spec"))
		}
	case (kind == "Application" || kind == "ApplicationSet") && group == "argoproj.io":
		spec := get(top, "spec")
		if kind == "ApplicationSet" {
			spec = get(top, "spec", "template", "spec")
		}
		if spec == nil {
			break
		}
		src := func(s *kyaml.RNode) { add(either(s, "targetRevision", "repoURL")) }
		if s := get(spec, "source"); s != nil {
			src(s)
		}
		each(get(spec, "sources"), src)
	case path.Base(file) == "Chart.yaml":
		each(get(top, "dependencies"), func(d *kyaml.RNode) { add(either(d, "version", "name")) })
	case path.Base(file) == "kustomization.yaml":
		each(get(top, "helmCharts"), func(d *kyaml.RNode) { add(either(d, "version", "name")) })
	}
	return out
}
