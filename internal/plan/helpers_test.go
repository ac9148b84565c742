package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// seed is what the test registry holds: per repository, groups of tags that
// share one image (same digest), oldest first.
var seed = map[string][][]string{
	"docker.io/library/nginx": {
		{"1.25.3"}, {"1.25.3-alpine"}, {"1.25.5"}, {"1.26.1", "1.26", "latest", "stable"}, {"1.26.1-alpine"},
		{"mainline"}, // floats, but no versioned tag has its digest
	},
	"docker.io/library/busybox": {{"1.36.0"}, {"1.36.1"}, {"1.37.0", "latest"}},
	"docker.io/library/redis":   {{"7.2.4-alpine"}, {"7.4.1-alpine", "7-alpine"}},
	"ghcr.io/acme/api":          {{"v1.7.0"}, {"v1.8.2"}},
	"ghcr.io/acme/worker":       {{"build-9"}, {"build-10"}, {"build-11"}},
	"ghcr.io/acme/frozen":       {{"3.1.0"}, {"3.2.0"}},
	// Streams: the newest node only as another variant; a commit tag.
	"docker.io/library/node": {{"20.11.1-alpine3.18"}, {"20.12.0-alpine3.18"}, {"22.3.0-alpine3.19"}, {"sha-3f9a2c1"}},
}

// testRegistry is a registrytest server holding seed under one path prefix
// per original registry host, as a mirror does.
type testRegistry struct {
	*registrytest.Server
	digests map[string]string // "repo:tag" -> digest
}

func newRegistry(tb testing.TB, repos map[string][][]string, opts ...registrytest.Option) *testRegistry {
	tb.Helper()
	r := &testRegistry{Server: registrytest.NewServer(tb, opts...), digests: map[string]string{}}
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for repo, groups := range repos {
		for i, tags := range groups {
			img := registrytest.Image(tb, repo+"@"+tags[0], created.AddDate(0, 0, i), nil)
			for _, tag := range tags {
				r.digests[repo+":"+tag] = r.Push(tb, repo, tag, img)
			}
		}
	}
	return r
}

// digest is the digest pushed as repo:tag.
func (r *testRegistry) digest(tb testing.TB, repo, tag string) string {
	tb.Helper()
	d, ok := r.digests[repo+":"+tag]
	if !ok {
		tb.Fatalf("%s:%s was not pushed", repo, tag)
	}
	return d
}

// client is a fresh registry client (empty caches) that reaches docker.io
// and ghcr.io through this server, without retries or a keychain.
func (r *testRegistry) client() *registry.Client { return r.clientAt(r.URL()) }

// clientAt is client for the server at url (another process's).
func (r *testRegistry) clientAt(url string) *registry.Client {
	return registry.NewClient(
		registry.WithMirrors(map[string]string{
			"docker.io": url + "/docker.io",
			"ghcr.io":   url + "/ghcr.io",
		}),
		registry.WithKeychain(authn.NewMultiKeychain()),
		registry.WithRetry(0, time.Millisecond),
	)
}

// scanFiles writes files (name -> content) below a temporary directory and
// scans it, so that references carry real lines and spans.
func scanFiles(tb testing.TB, files map[string]string) scan.Result {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	res, err := scan.Dir(tb.Context(), dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// policies compiles specs per normalized image name; images without an
// entry get the default policy.
func policies(tb testing.TB, specs map[string]policy.Spec) func(string, string) (*policy.Policy, error) {
	tb.Helper()
	compiled := map[string]*policy.Policy{}
	for img, s := range specs {
		p, err := policy.New(s)
		if err != nil {
			tb.Fatalf("policy for %s: %v", img, err)
		}
		compiled[img] = p
	}
	def, err := policy.New(policy.Spec{})
	if err != nil {
		tb.Fatal(err)
	}
	return func(img, _ string) (*policy.Policy, error) {
		if p, ok := compiled[img]; ok {
			return p, nil
		}
		return def, nil
	}
}

// pod is a manifest with one container per image reference.
func pod(images ...string) string {
	s := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
	for i, img := range images {
		s += fmt.Sprintf("    - name: c%d\n      image: %s\n", i, img)
	}
	return s
}

// summary is an update as the tests compare it: locations as "file:line",
// and the changes as "file:line tag@digest".
type summary struct {
	Image, From, To, Type, Digest string
	Locations                     []string
	Changes                       []string
}

// imageOf is u.Image, and what u.Repo names when it is another image: the
// parsed name is what a PR body's details are looked up with.
func imageOf(u plan.Update) string {
	if got := imagename.String(u.Repo); got != u.Image {
		return u.Image + " (Repo " + got + ")"
	}
	return u.Image
}

func summarize(p *plan.Plan) []summary {
	out := []summary{}
	for _, u := range p.Updates {
		s := summary{Image: imageOf(u), From: u.From, To: u.To, Type: u.Type, Digest: u.Digest}
		for _, l := range u.Locations {
			s.Locations = append(s.Locations, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		for _, c := range u.Changes {
			s.Changes = append(s.Changes, fmt.Sprintf("%s:%d %s@%s", c.Ref.File, c.Ref.Line, c.Tag, c.Digest))
		}
		out = append(out, s)
	}
	return out
}
