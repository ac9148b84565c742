package scan

import (
	"fmt"
	"path"
	"sort"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// kustomization is what the scan keeps of a kustomization file to apply
// kustomize's image renaming across the tree: the names its `images:`
// entries rewrite, and the files and directories it builds from.
type kustomization struct {
	file     string            // the kustomization file, slash path from the root
	renames  map[string]string // images[].name -> "file:line" of the entry
	includes []string          // resources, bases, components, patch files: slash paths from the root
}

// isKustomization reports whether file is a kustomization kustomize reads
// from its directory.
func isKustomization(file string) bool {
	base := path.Base(file)
	return base == "kustomization.yaml" || base == "kustomization.yml"
}

// readKustomization takes the top-level keys of a kustomization that say
// what it builds from and which image names it rewrites. Remote resources
// (URLs, git references) and paths leaving the tree are not followed.
func readKustomization(file string, docs []*kyaml.Node) *kustomization {
	if len(docs) == 0 || len(docs[0].Content) == 0 || docs[0].Content[0].Kind != kyaml.MappingNode {
		return nil
	}
	k := &kustomization{file: file, renames: map[string]string{}}
	m := docs[0].Content[0]
	dir := path.Dir(file)
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i].Value, m.Content[i+1]
		if v.Kind != kyaml.SequenceNode {
			continue
		}
		for _, e := range v.Content {
			switch key {
			case "resources", "bases", "components", "patchesStrategicMerge":
				k.include(dir, e)
			case "patches":
				if e.Kind == kyaml.MappingNode {
					if p := mapValue(e, "path"); p != nil {
						k.include(dir, p)
					}
				}
			case "images":
				if e.Kind != kyaml.MappingNode {
					continue
				}
				if n := mapValue(e, "name"); n != nil && hasValue(n) {
					if _, dup := k.renames[n.Value]; !dup {
						k.renames[n.Value] = fmt.Sprintf("%s:%d", file, n.Line)
					}
				}
			}
		}
	}
	return k
}

func (k *kustomization) include(dir string, n *kyaml.Node) {
	if !hasValue(n) || strings.ContainsAny(n.Value, "\n\r") || strings.Contains(n.Value, "://") ||
		strings.HasPrefix(n.Value, "/") || strings.HasPrefix(n.Value, "github.com/") || strings.HasPrefix(n.Value, "git@") {
		return
	}
	p := path.Join(dir, n.Value)
	if p == ".." || strings.HasPrefix(p, "../") {
		return
	}
	k.includes = append(k.includes, p)
}

// renamed takes out of res.Refs the `image:` references that kustomize
// rewrites (DESIGN.md "Notices"): a reference whose name, as written, is
// the name of an `images:` entry of a kustomization that builds its file
// (directly, or through the bases, resources, components and patches of
// kustomizations it builds) is not pulled by that name: the entry is the
// reference, and it is already one of res.Refs. kubebuilder's
// `image: controller:latest` is the common case: looked up as written, it
// is a Docker Hub repository that does not exist.
//
// A file can be built by several kustomizations (a base shared by
// overlays): its reference is taken out only when every build that reaches
// it renames it; one build that uses it as written keeps it a reference of
// its own. Files no kustomization builds are left as they are. Each
// reference taken out becomes a Skipped that names the entry renaming it.
func (res *Result) renamed(ks []*kustomization) {
	if len(ks) == 0 {
		return
	}
	seen := reach(ks)
	if len(seen) == 0 {
		return
	}
	kept := res.Refs[:0]
	for _, r := range res.Refs {
		by, ok := renamedBy(r, seen[r.File])
		if !ok {
			kept = append(kept, r)
			continue
		}
		res.Skipped = append(res.Skipped, Skipped{
			Location: r.Location, Kind: r.Kind, Value: clip(r.String()), Reason: SkipRenamed,
			Detail: fmt.Sprintf("kustomize renames %s (images: entry at %s); that entry is the reference", quote(r.Name), by),
		})
	}
	res.Refs = kept
}

// renamedBy reports whether every build reaching r's file renames r's
// name, and one of the entries that do.
func renamedBy(r Ref, builds []map[string]string) (string, bool) {
	if r.Kind != KindImage || len(builds) == 0 {
		return "", false
	}
	by := ""
	for _, names := range builds {
		at, ok := names[r.Name]
		if !ok {
			return "", false
		}
		by = at
	}
	return by, true
}

// reach walks every build from its root (a kustomization no other one
// includes) and returns, per file reached, the sets of names renamed on
// the way to it, one per distinct set. Kustomize applies a kustomization's
// images to everything it builds, its bases' output included, so a name
// renamed anywhere on the way is renamed in the file. The walk is
// memoized on (kustomization, names renamed so far) and stops at cycles.
func reach(ks []*kustomization) map[string][]map[string]string {
	byDir := map[string]*kustomization{}
	for _, k := range ks {
		byDir[path.Dir(k.file)] = k
	}
	included := map[*kustomization]bool{}
	for _, k := range ks {
		for _, p := range k.includes {
			if sub, ok := byDir[p]; ok && sub != k {
				included[sub] = true
			}
		}
	}
	w := reachWalk{byDir: byDir, out: map[string][]map[string]string{}, done: map[string]bool{}, setKeys: map[string]map[string]bool{}}
	for _, k := range ks {
		if !included[k] {
			w.visit(k, nil, map[*kustomization]bool{})
		}
	}
	return w.out
}

type reachWalk struct {
	byDir   map[string]*kustomization
	out     map[string][]map[string]string
	done    map[string]bool            // kustomization file + names key, visited
	setKeys map[string]map[string]bool // file -> names keys already recorded
}

func (w *reachWalk) visit(k *kustomization, renamed map[string]string, onPath map[*kustomization]bool) {
	if onPath[k] {
		return
	}
	names := make(map[string]string, len(renamed)+len(k.renames))
	for n, at := range k.renames {
		names[n] = at
	}
	for n, at := range renamed { // the innermost entry is the one that rewrites
		if _, ok := names[n]; !ok {
			names[n] = at
		}
	}
	key := k.file + "\x00" + namesKey(names)
	if w.done[key] {
		return
	}
	w.done[key] = true
	onPath[k] = true
	defer delete(onPath, k)
	for _, p := range k.includes {
		if sub, ok := w.byDir[p]; ok {
			w.visit(sub, names, onPath)
			continue
		}
		w.record(p, names)
	}
}

func (w *reachWalk) record(file string, names map[string]string) {
	key := namesKey(names)
	if w.setKeys[file] == nil {
		w.setKeys[file] = map[string]bool{}
	}
	if w.setKeys[file][key] {
		return
	}
	w.setKeys[file][key] = true
	w.out[file] = append(w.out[file], names)
}

func namesKey(names map[string]string) string {
	keys := make([]string, 0, len(names))
	for n := range names {
		keys = append(keys, n)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}
