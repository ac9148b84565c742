package registry_test

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

var created = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// newClient never reads the developer's docker config: tests are hermetic.
func newClient(opts ...registry.Option) *registry.Client {
	base := []registry.Option{registry.WithKeychain(authn.NewMultiKeychain())}
	return registry.NewClient(append(base, opts...)...)
}

// viaMirror serves ghcr.io from srv through an http:// mirror. The client
// then never tries https first (as it does for a bare 127.0.0.1 host), so
// request counts are exactly what the server saw.
func viaMirror(srv *registrytest.Server) registry.Option {
	return registry.WithMirrors(map[string]string{"ghcr.io": srv.URL()})
}

func pushTags(t *testing.T, srv *registrytest.Server, repo string, tags ...string) {
	t.Helper()
	img := registrytest.Image(t, repo, created, nil)
	for _, tag := range tags {
		srv.Push(t, repo, tag, img)
	}
}

func TestTagsFollowsEveryPage(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithPageSize(3))
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("1.%d.0", i))
	}
	pushTags(t, srv, "acme/api", want...)

	got, err := newClient().Tags(t.Context(), registrytest.Repo(t, srv.Host()+"/acme/api"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if n := srv.Count(http.MethodGet, "/tags/list"); n != 4 {
		t.Errorf("tags/list requests = %d, want 4 pages of at most 3", n)
	}
}

func TestTagsAreListedOncePerClient(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "v1.0.0", "v1.1.0")
	repo := srv.Host() + "/acme/api"

	t.Run("sequential", func(t *testing.T) {
		c := newClient()
		srv.Reset()
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err != nil {
			t.Fatal(err)
		}
		before := len(srv.Requests())
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err != nil {
			t.Fatal(err)
		}
		if after := len(srv.Requests()); after != before {
			t.Errorf("second Tags sent %d requests, want none", after-before)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		c := newClient()
		srv.Reset()
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := srv.Count(http.MethodGet, "/tags/list"); n != 1 {
			t.Errorf("tags/list requests = %d, want 1 shared by all callers", n)
		}
	})
	t.Run("errors too", func(t *testing.T) {
		c := newClient()
		srv.Reset()
		missing := srv.Host() + "/acme/missing"
		_, err1 := c.Tags(t.Context(), registrytest.Repo(t, missing))
		_, err2 := c.Tags(t.Context(), registrytest.Repo(t, missing))
		if err1 == nil || err2 == nil {
			t.Fatalf("Tags of a missing repository: %v, %v; want errors", err1, err2)
		}
		if n := srv.Count(http.MethodGet, "/tags/list"); n != 1 {
			t.Errorf("tags/list requests = %d, want 1 (404 is neither retried nor asked again)", n)
		}
		var te *transport.Error
		if !errors.As(err1, &te) || te.StatusCode != http.StatusNotFound {
			t.Errorf("error %v does not wrap a 404 transport.Error", err1)
		}
	})
}

func TestDigest(t *testing.T) {
	srv := registrytest.NewServer(t)
	imgDigest := srv.Push(t, "acme/api", "v1.0.0", registrytest.Image(t, "api", created, nil))
	idxDigest := srv.PushIndex(t, "library/nginx", "1.26.1",
		registrytest.Index(t, "nginx", created, nil, "linux/amd64", "linux/arm64"))

	tests := []struct {
		name, repo, tag string
		refuseHead      bool
		want            string
		wantHEAD        int
		wantGET         int
	}{
		{name: "image by HEAD", repo: "acme/api", tag: "v1.0.0", want: imgDigest, wantHEAD: 1},
		{name: "index by HEAD", repo: "library/nginx", tag: "1.26.1", want: idxDigest, wantHEAD: 1},
		{name: "HEAD refused falls back to GET", repo: "library/nginx", tag: "1.26.1", refuseHead: true,
			want: idxDigest, wantHEAD: 1, wantGET: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			if tc.refuseHead {
				srv.Fail("HEAD /v2/", http.StatusMethodNotAllowed, 0, nil)
			}
			c := newClient()
			for range 2 { // the second call is answered from the cache
				got, err := c.Digest(t.Context(), registrytest.Tag(t, srv.Host()+"/"+tc.repo, tc.tag))
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("Digest = %s, want %s", got, tc.want)
				}
			}
			if n := srv.Count(http.MethodHead, "/manifests/"); n != tc.wantHEAD {
				t.Errorf("HEAD manifests = %d, want %d", n, tc.wantHEAD)
			}
			if n := srv.Count(http.MethodGet, "/manifests/"); n != tc.wantGET {
				t.Errorf("GET manifests = %d, want %d", n, tc.wantGET)
			}
		})
	}
}

func TestStatsSum(t *testing.T) {
	a := []registry.HostStats{{Host: "ghcr.io", Requests: 3, Ping: 1, Tags: 2}, {Host: "quay.io", Requests: 1, Ping: 1}}
	b := []registry.HostStats{{Host: "ghcr.io", Requests: 2, Tags: 1, FromCache: 4, NotModified: 1, ManifestHead: 1}}
	want := []registry.HostStats{
		{Host: "ghcr.io", Requests: 5, Ping: 1, Tags: 3, FromCache: 4, NotModified: 1, ManifestHead: 1},
		{Host: "quay.io", Requests: 1, Ping: 1},
	}
	got := registry.Sum(b, a)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sum (-want +got):\n%s", diff)
	}
	if k := got[0].ByKind(); len(k) != len(registry.Kinds) || k["tags"] != 3 || k["manifestHead"] != 1 || k["ping"] != 1 {
		t.Errorf("ByKind = %v", k)
	}
}
