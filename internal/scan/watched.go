package scan

import (
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
)

// SkipWatched: a repository another image automation watches for new tags
// (Flux ImageRepository spec.image and the other image.toolkit.fluxcd.io
// objects, Argo CD Image Updater's image-list annotation and ImageUpdater
// objects). It names what to watch, not an image to pull: a tag written
// there would break that tool (ImageRepository.spec.image must stay
// tagless), and the missing tag does not mean "pulls latest".
const SkipWatched = "watched"

// imageListAnnotation is Argo CD Image Updater's list of the images it
// watches for an Application: "[alias=]name[:constraint], ...".
const imageListAnnotation = "argocd-image-updater.argoproj.io/image-list"

// watched takes the places where an object names a repository to watch,
// so that the walk passes over them: every `image:` (and, for Argo CD
// Image Updater's objects, `imageName:`) value in an object of Flux's
// image automation or of Argo CD Image Updater, and the entries of the
// image-list annotation on any object.
func (w *walker) watched(doc *kyaml.Node, group, kind string) {
	if v := mapValue(childPath(doc, "metadata", "annotations"), imageListAnnotation); v != nil && hasValue(v) {
		w.seen[v] = true
		for _, e := range strings.Split(v.Value, ",") {
			w.watchedValue(v, strings.TrimSpace(e), "Argo CD Image Updater's image-list annotation")
		}
	}
	var who string
	switch group {
	case "image.toolkit.fluxcd.io":
		who = "Flux " + kind
	case "argocd-image-updater.argoproj.io":
		who = "Argo CD Image Updater's " + kind
	default:
		return
	}
	w.watchedKeys(child(doc, "spec"), who)
}

// watchedKeys marks the image values under n, following no alias: an
// anchored value is visited where it is defined.
func (w *walker) watchedKeys(n *kyaml.Node, who string) {
	if n == nil {
		return
	}
	switch n.Kind {
	case kyaml.SequenceNode:
		for _, c := range n.Content {
			w.watchedKeys(c, who)
		}
	case kyaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if (k.Value == "image" || k.Value == "imageName") && hasValue(v) && !w.seen[v] {
				w.seen[v] = true
				w.watchedValue(v, v.Value, who+"'s "+k.Value+":")
				continue
			}
			w.watchedKeys(v, who)
		}
	}
}

// watchedValue records one watched repository ("[alias=]name[:constraint]").
func (w *walker) watchedValue(at *kyaml.Node, value, who string) {
	if value == "" {
		return
	}
	s := Skipped{Location: w.at(at), Kind: KindImage, Value: clip(value), Reason: SkipWatched,
		Detail: who + " names a repository to watch for new tags, not an image to pull; left alone"}
	if isVariable(value) {
		w.skip(w.at(at), KindImage, value, "")
		return
	}
	ref := value
	if _, after, ok := strings.Cut(ref, "="); ok {
		ref = after // Argo CD Image Updater's alias=
	}
	// What follows the name is a tag or a version constraint ("~1.2",
	// "1.x"): only the name is the image.
	nm := ref
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		nm = ref[:i]
	}
	if repo, err := parseName(nm); err == nil {
		s.Image = imagename.String(repo)
	}
	w.skipped = append(w.skipped, s)
}
