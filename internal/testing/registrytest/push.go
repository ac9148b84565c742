package registrytest

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Push pushes img as repo:tag, repo being the path on this server
// ("library/nginx" or "docker.io/library/nginx"). It returns the digest.
func (s *Server) Push(t testing.TB, repo, tag string, img v1.Image) string {
	t.Helper()
	ref := s.ref(t, repo, tag)
	if err := remote.Write(ref, img, remote.WithTransport(pushTransport{s.pushRT})); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	return digest(t, img)
}

// PushIndex pushes a multi-platform image as repo:tag and returns the
// index digest.
func (s *Server) PushIndex(t testing.TB, repo, tag string, idx v1.ImageIndex) string {
	t.Helper()
	ref := s.ref(t, repo, tag)
	if err := remote.WriteIndex(ref, idx, remote.WithTransport(pushTransport{s.pushRT})); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	return digest(t, idx)
}

func (s *Server) ref(t testing.TB, repo, tag string) name.Tag {
	t.Helper()
	// Insecure: the server speaks plain http, whatever its host name.
	ref, err := name.NewTag(s.Host()+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

type pushTransport struct{ next http.RoundTripper }

func (p pushTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(pushHeader, "1")
	return p.next.RoundTrip(r)
}

func digest(t testing.TB, d interface{ Digest() (v1.Hash, error) }) string {
	t.Helper()
	h, err := d.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// Image builds a small single-platform (linux/amd64) image whose config
// has the created time and labels given. Its one layer derives from seed,
// so different seeds make different digests.
func Image(t testing.TB, seed string, created time.Time, labels map[string]string) v1.Image {
	t.Helper()
	return PlatformImage(t, seed, "linux/amd64", created, labels)
}

// Index builds a multi-platform image, one Image per platform
// ("linux/amd64", "linux/arm64/v8"), in the order given.
func Index(t testing.TB, seed string, created time.Time, labels map[string]string, platforms ...string) v1.ImageIndex {
	t.Helper()
	var idx v1.ImageIndex = empty.Index
	for _, p := range platforms {
		plat, err := v1.ParsePlatform(p)
		if err != nil {
			t.Fatal(err)
		}
		img := PlatformImage(t, seed, p, created, labels)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: plat},
		})
	}
	return idx
}

// PlatformImage builds one small image for platform ("linux/arm64"), as
// Image does for linux/amd64.
func PlatformImage(t testing.TB, seed, platform string, created time.Time, labels map[string]string) v1.Image {
	t.Helper()
	plat, err := v1.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(seed + " " + platform))
	layer := static.NewLayer([]byte(fmt.Sprintf("%x", sum)), types.OCIUncompressedLayer)
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		t.Fatal(err)
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.Created = v1.Time{Time: created}
	cfg.OS, cfg.Architecture, cfg.Variant = plat.OS, plat.Architecture, plat.Variant
	cfg.Config.Labels = labels
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// IndexOf builds a multi-platform image of images, each listed under the
// platform its config names: for indexes whose platforms were built at
// different times, as a release pushed one architecture at a time is.
func IndexOf(t testing.TB, images ...v1.Image) v1.ImageIndex {
	t.Helper()
	var idx v1.ImageIndex = empty.Index
	for _, img := range images {
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		plat := v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &plat}})
	}
	return idx
}

// Delete removes the manifest repo@digest, as a registry's retention policy
// or `crane delete` does. Tags that point at it elsewhere stay listed; a
// tag re-pushed since points at another manifest and keeps pulling.
func (s *Server) Delete(t testing.TB, repo, digest string) {
	t.Helper()
	ref, err := name.NewDigest(s.Host()+"/"+repo+"@"+digest, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Delete(ref, remote.WithTransport(pushTransport{s.pushRT})); err != nil {
		t.Fatalf("delete %s: %v", ref, err)
	}
}
