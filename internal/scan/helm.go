package scan

import (
	"fmt"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
)

// mapValue returns the scalar value of key in a mapping, following an alias.
// It is nil when m is nil or not a mapping, or the value is no scalar.
func mapValue(m *kyaml.Node, key string) *kyaml.Node {
	if v := child(m, key); v != nil && v.Kind == kyaml.ScalarNode {
		return v
	}
	return nil
}

// helm takes a Helm-style values map: image: {registry?, repository, tag,
// digest?}; some charts say name where others say repository. A map
// without a tag is helmUntagged's.
func (w *walker) helm(m *kyaml.Node) {
	if w.seen[m] {
		return
	}
	w.seen[m] = true
	dups := duplicated(m)
	for _, key := range []string{"registry", "repository", "name", "tag", "digest"} {
		if first, dup := dups[key]; dup {
			w.skip(w.at(m), KindHelm, key, fmt.Sprintf("key %s appears twice in this image map (first on line %d): which one counts depends on the tool reading the file; remove one", quote(key), first))
			return
		}
	}
	repo, tag := mapValue(m, "repository"), mapValue(m, "tag")
	if child(m, "tag") == nil {
		tag = mapValue(m, "version") // exporterImage: {repository, version}
	}
	byName := repo == nil
	if byName {
		repo = mapValue(m, "name") // image: {name: ghcr.io/acme/api, tag: v1.2.3}
	}
	if repo == nil || !hasValue(repo) {
		return
	}
	img := repo.Value
	if reg := mapValue(m, "registry"); reg != nil && hasValue(reg) {
		img = strings.TrimSuffix(reg.Value, "/") + "/" + img
	}
	if tag == nil || !hasValue(tag) {
		w.helmUntagged(m, repo, img, byName)
		return
	}
	if w.seen[tag] {
		return
	}
	w.seen[tag] = true
	// Some charts write `tag: 1.2.3@sha256:...`: parse it as a reference tail.
	p, err := splitRef("x:" + tag.Value)
	if err == nil {
		p.repo, err = parseName(img)
	}
	d := mapValue(m, "digest")
	if err == nil && p.digest == "" && d != nil && hasValue(d) {
		err = checkDigest(d.Value)
	}
	if err != nil {
		w.skip(w.at(tag), KindHelm, helmValue(img, tag, d), err.Error())
		return
	}
	span, ok := w.span(tag)
	if !ok {
		w.problem(tag, "cannot locate tag %s in the file's bytes; left untouched", quote(tag.Value))
		return
	}
	ref := Ref{
		Location: w.at(tag),
		Kind:     KindHelm,
		Name:     img,
		Repo:     p.repo,
		Tag:      p.tag,
		Digest:   p.digest,
	}
	shifted := Span{span.Start - 2, span.End} // account for the "x:" we put in front
	ref.TagField, ref.DigestField = stringFields(shifted, p)
	if p.digest == "" {
		ref.TagField = Field{Span: span, OK: true, Scalar: tag.Style == 0}
		ref.DigestField = w.digestKey(m)
		if d != nil && hasValue(d) && ref.DigestField.OK {
			ref.Digest = d.Value
		}
	}
	w.add(ref)
}

// helmUntagged takes a Helm image map with a repository and no tag
// (`tag:`, `tag: null`, `tag: ""`, or no tag key). With a digest, the
// digest is the reference (pulled as repository@digest, and checked for
// dangling like any pinned digest). Without one, the chart's default tag
// applies: nothing here to update, which a notice says. A map that names
// its image by `name` is taken only when the name parses: `name` is too
// common a key to call every value of it an invalid image.
func (w *walker) helmUntagged(m, repo *kyaml.Node, img string, byName bool) {
	d := mapValue(m, "digest")
	r, err := parseName(img)
	if err != nil {
		if !byName || isVariable(img) {
			w.skip(w.at(repo), KindHelm, img, err.Error())
		}
		return
	}
	if d == nil || !hasValue(d) {
		w.skipped = append(w.skipped, Skipped{
			Location: w.at(repo), Kind: KindHelm, Value: clip(img), Image: imagename.String(r),
			Reason: SkipNoTag, Detail: "no tag in these values: the chart's default applies (often its appVersion); write tag: to have it updated",
		})
		return
	}
	if err := checkDigest(d.Value); err != nil {
		w.skip(w.at(d), KindHelm, img+"@"+d.Value, err.Error())
		return
	}
	field := w.digestKey(m)
	if !field.OK {
		w.problem(d, "cannot locate digest %s in the file's bytes; left untouched", quote(d.Value))
		return
	}
	w.add(Ref{Location: w.at(d), Kind: KindHelm, Name: img, Repo: r, Digest: d.Value, DigestField: field})
}

// helmValue spells a Helm map's parts as one reference, for a notice.
func helmValue(img string, tag, digest *kyaml.Node) string {
	s := img + ":" + tag.Value
	if digest != nil && hasValue(digest) {
		s += "@" + digest.Value
	}
	return s
}

// digestKey is the field of a `digest:` key beside the tag, when there is one.
func (w *walker) digestKey(m *kyaml.Node) Field {
	d := mapValue(m, "digest")
	if d == nil {
		return Field{}
	}
	span, ok := w.span(d)
	if !ok && d.Value == "" && d.Style == 0 {
		// `digest:` with nothing after it: a null we may fill in.
		if off := w.offset(d); off >= 0 {
			return Field{Span: Span{off, off}, Prefix: "", OK: true}
		}
	}
	return Field{Span: span, OK: ok, Scalar: d.Style == 0}
}
