package drift

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// runningDigest is the registry digest in a container's status.imageID,
// in the forms container runtimes write it:
//
//	docker-pullable://repo@sha256:…   Docker (dockershim, cri-dockerd)
//	repo@sha256:…                     containerd, CRI-O
//	sha256:…                          an image ID only (a local build, an
//	                                  image loaded into the node): the
//	                                  config's digest, which no registry
//	                                  serves by that name
//	""                                not pulled yet
//
// A non-empty why says why there is no digest to compare.
func runningDigest(imageID string) (digest, why string) {
	id := strings.TrimPrefix(imageID, "docker-pullable://")
	id = strings.TrimPrefix(id, "docker://")
	switch {
	case imageID == "":
		return "", "has no image ID yet (image not pulled yet)"
	case strings.HasPrefix(id, "sha256:"):
		return "", fmt.Sprintf("runs image ID %s, a local image ID and not a registry digest", imagename.ShortDigest(id))
	}
	if _, d, ok := strings.Cut(id, "@"); ok && validDigest(d) {
		return d, ""
	}
	return "", fmt.Sprintf("has an image ID in a form imagebot does not read (%.80q)", imageID)
}

func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// specImage is a container's spec image split as scan splits a
// reference: its repository, tag ("latest" when neither tag nor digest is
// written, as the kubelet reads it) and digest.
type specImage struct {
	repo        name.Repository
	image       string
	tag, digest string
}

func parseSpec(s string) (specImage, error) {
	base, digest, _ := strings.Cut(s, "@")
	repo, tag := base, ""
	if i := strings.LastIndexByte(base, ':'); i > strings.LastIndexByte(base, '/') {
		repo, tag = base[:i], base[i+1:]
	}
	r, err := imagename.Parse(repo)
	if err != nil {
		return specImage{}, err
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	return specImage{repo: r, image: imagename.String(r), tag: tag, digest: digest}, nil
}

// runs reports whether a container started from spec runs the reference as
// written (same repository, tag and digest).
func (s specImage) runs(r Reference) bool {
	tag := r.Tag
	if tag == "" && r.Digest == "" {
		tag = "latest"
	}
	return s.image == r.Image && s.tag == tag && s.digest == r.Digest
}

// written is the reference as the repository writes it.
func (r Reference) written() string {
	s := r.Image
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}
