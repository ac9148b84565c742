package scan

import (
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// This file finds the images that YAML writes under keys other than
// `image:` (DESIGN.md "Where images are found", turn 4). Each rule is
// narrow on purpose: a value is a reference only when it parses as one, so
// that a key that merely sounds like an image, or a map that merely has a
// `repository`, never becomes an edit.

// imageKey reports whether a key names an image by its suffix: initImage,
// sidecarImage, node_image, SIDECAR_IMAGE. `image` itself, and kustomize's
// `images`, have their own rules.
func imageKey(k string) bool {
	// The suffix first: the pattern is only for the few keys that have it.
	return k != "image" && (strings.HasSuffix(k, "image") || strings.HasSuffix(k, "Image") || strings.HasSuffix(k, "_IMAGE")) && keyRE.MatchString(k)
}

// keyedImage takes the value of a key that names an image. A string is a
// reference only when it parses as one with a tag or a digest (a bare word
// under `baseImage:` may be anything); one with a placeholder is a variable
// notice, as under `image:`. A map is read as a Helm image map when it has
// a repository.
func (w *walker) keyedImage(v *kyaml.Node) {
	if v.Kind == kyaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	switch {
	case v.Kind == kyaml.MappingNode && child(v, "repository") != nil:
		w.helm(v)
	case v.Kind == kyaml.ScalarNode && hasValue(v) && !w.seen[v]:
		if isVariable(v.Value) && !strings.ContainsAny(v.Value, " \t\n") {
			w.refString(v, KindImage) // a variable notice; a command line is none
			return
		}
		if p, err := parseRef(v.Value); err == nil && (p.tagStart >= 0 || p.digestStart >= 0) && !strings.Contains(v.Value, "://") {
			w.refString(v, KindImage)
		}
	}
}

// mapImage takes a mapping that spells an image in parts, whatever key it
// sits under: `{registry?, repository, tag | version}` (redis:
// {repository: bitnami/redis, tag: 7.2.4}), and `image: NAME` with the
// tag in a sibling `tag:` key (`image: quay.io/argoproj/argocd` beside
// `tag: v2.14.0`), where the tag is the reference's, not a missing one.
func (w *walker) mapImage(m *kyaml.Node) {
	if w.seen[m] {
		return
	}
	if img := child(m, "image"); img != nil && img.Kind == kyaml.ScalarNode {
		w.siblingTag(m, img)
		return
	}
	repo := mapValue(m, "repository")
	if repo == nil || !hasValue(repo) {
		return
	}
	tag := mapValue(m, "tag")
	if tag == nil {
		tag = mapValue(m, "version")
		// {name, repository, version} is a chart dependency (Chart.yaml,
		// helmfile), not an image.
		if child(m, "name") != nil || child(m, "chart") != nil {
			return
		}
	}
	if tag == nil || !hasValue(tag) || w.seen[tag] {
		return
	}
	name := repo.Value
	if reg := mapValue(m, "registry"); reg != nil && hasValue(reg) {
		name = strings.TrimSuffix(reg.Value, "/") + "/" + name
	}
	// Only a map whose parts parse is an image: a git repository with a
	// release tag, a URL, a placeholder are not ours.
	if _, err := parseName(name); err != nil || strings.Contains(name, "://") {
		return
	}
	if _, err := splitRef("x:" + tag.Value); err != nil {
		return
	}
	w.helm(m)
}

// siblingTag takes `image: NAME` beside `tag:` in one map. Only a name
// with neither tag nor digest of its own pairs with the sibling; the parts
// are read as a Helm image map, so only the `tag` bytes change, and an
// empty `tag:` says the chart's default applies rather than "latest".
func (w *walker) siblingTag(m, img *kyaml.Node) {
	tag := child(m, "tag")
	if tag == nil || tag.Kind != kyaml.ScalarNode || !hasValue(img) || w.seen[img] {
		return
	}
	if p, err := parseRef(img.Value); err != nil || p.tagStart >= 0 || p.digestStart >= 0 {
		return
	}
	parts := &kyaml.Node{Kind: kyaml.MappingNode, Line: tag.Line, Column: tag.Column}
	add := func(key string, v *kyaml.Node) {
		parts.Content = append(parts.Content, &kyaml.Node{Kind: kyaml.ScalarNode, Value: key}, v)
	}
	if reg := mapValue(m, "registry"); reg != nil {
		add("registry", reg)
	}
	add("repository", img)
	add("tag", tag)
	if d := mapValue(m, "digest"); d != nil {
		add("digest", d)
	}
	w.seen[img] = true
	w.helm(parts)
}
