package plan_test

import (
	"crypto/ecdsa"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// now is the gate tests' clock: created times are set relative to it.
var now = time.Date(2026, 8, 20, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) time.Time { return now.Add(-d) }

const day = 24 * time.Hour

// gateWorld is a real registry for the gate tests, reached as ghcr.io
// through a mirror, with a signing key whose public half is in the
// repository as keys/cosign.pub.
type gateWorld struct {
	srv   *registrytest.Server
	key   *ecdsa.PrivateKey
	rogue *ecdsa.PrivateKey
	keys  fstest.MapFS
}

func newGateWorld(t testing.TB) *gateWorld {
	t.Helper()
	w := &gateWorld{srv: registrytest.NewServer(t)}
	var pub []byte
	w.key, pub = registrytest.NewKey(t)
	w.rogue, _ = registrytest.NewKey(t)
	w.keys = fstest.MapFS{"keys/cosign.pub": {Data: pub}}
	return w
}

// push pushes repo:tag ("acme/web") built at created, for platforms (an
// index when there are several) and returns its digest.
func (w *gateWorld) push(t testing.TB, repo, tag string, created time.Time, platforms ...string) string {
	t.Helper()
	seed := fmt.Sprintf("%s:%s@%s", repo, tag, created)
	if len(platforms) <= 1 {
		p := "linux/amd64"
		if len(platforms) == 1 {
			p = platforms[0]
		}
		return w.srv.Push(t, "ghcr.io/"+repo, tag, registrytest.PlatformImage(t, seed, p, created, nil))
	}
	var imgs []v1.Image
	for _, p := range platforms {
		imgs = append(imgs, registrytest.PlatformImage(t, seed, p, created, nil))
	}
	return w.srv.PushIndex(t, "ghcr.io/"+repo, tag, registrytest.IndexOf(t, imgs...))
}

func (w *gateWorld) sign(t testing.TB, repo, digest string, key *ecdsa.PrivateKey) {
	t.Helper()
	w.srv.SignWithKey(t, "ghcr.io/"+repo, digest, key)
}

func (w *gateWorld) client() *registry.Client {
	return registry.NewClient(
		registry.WithMirrors(map[string]string{"ghcr.io": w.srv.URL() + "/ghcr.io"}),
		registry.WithKeychain(authn.NewMultiKeychain()),
		registry.WithRetry(0, time.Millisecond),
	)
}

// build plans files with the gates of specs (by image) at now.
func (w *gateWorld) build(t testing.TB, files map[string]string, specs map[string]gate.Spec) *plan.Plan {
	t.Helper()
	reg := w.client()
	p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
		Registry:  reg,
		Policy:    policies(t, nil),
		Inspector: inspect.New(reg, inspect.WithKeys(w.keys)),
		Gates:     func(img, _ string) gate.Spec { return specs[img] },
		Now:       func() time.Time { return now },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// updateLines are the updates as "image from -> to type [digest] notice".
func updateLines(p *plan.Plan) []string {
	out := []string{}
	for _, u := range p.Updates {
		s := fmt.Sprintf("%s %s -> %s %s", u.Image, u.From, u.To, u.Type)
		if u.Notice != "" {
			s += " note: " + u.Notice
		}
		out = append(out, s)
	}
	return out
}

// problemLines are the problems as "file:line kind: message".
func problemLines(p *plan.Plan) []string {
	out := []string{}
	for _, pr := range p.Problems {
		out = append(out, fmt.Sprintf("%s:%d %s: %s", pr.File, pr.Line, pr.Kind, pr.Message))
	}
	return out
}

// pushIndex pushes repo:tag as an index whose platform images were built
// at the times given, as a release pushed one architecture at a time.
func (w *gateWorld) pushIndex(t *testing.T, repo, tag string, built map[string]time.Time) string {
	t.Helper()
	var imgs []v1.Image
	for _, p := range slices.Sorted(maps.Keys(built)) {
		imgs = append(imgs, registrytest.PlatformImage(t, fmt.Sprintf("%s:%s@%s", repo, tag, built[p]), p, built[p], nil))
	}
	return w.srv.PushIndex(t, "ghcr.io/"+repo, tag, registrytest.IndexOf(t, imgs...))
}

// replaceNew writes the short form of digest where s says NEW.
func replaceNew(s, digest string) string {
	_, hex, _ := strings.Cut(digest, ":")
	return strings.ReplaceAll(s, "NEW", hex[:12])
}
