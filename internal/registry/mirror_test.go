package registry_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

func TestMirrors(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "docker.io/library/nginx", "1.26.1")
	pushTags(t, srv, "library/nginx", "1.25.3")
	pushTags(t, srv, "mirror/quay.io/prometheus/node-exporter", "v1.8.2")

	tests := []struct {
		name     string
		mirrors  map[string]string
		repo     string
		want     []string
		wantPath string
	}{
		{name: "path prefix", mirrors: map[string]string{"docker.io": srv.URL() + "/docker.io"},
			repo: "docker.io/library/nginx", want: []string{"1.26.1"},
			wantPath: "/v2/docker.io/library/nginx/tags/list"},
		{name: "no path", mirrors: map[string]string{"docker.io": srv.URL()},
			repo: "docker.io/library/nginx", want: []string{"1.25.3"},
			wantPath: "/v2/library/nginx/tags/list"},
		{name: "short name, index.docker.io key", mirrors: map[string]string{"index.docker.io": srv.URL() + "/docker.io/"},
			repo: "nginx", want: []string{"1.26.1"},
			wantPath: "/v2/docker.io/library/nginx/tags/list"},
		{name: "deeper prefix", mirrors: map[string]string{"quay.io": srv.URL() + "/mirror/quay.io"},
			repo: "quay.io/prometheus/node-exporter", want: []string{"v1.8.2"},
			wantPath: "/v2/mirror/quay.io/prometheus/node-exporter/tags/list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			c := newClient(registry.WithMirrors(tc.mirrors))
			got, err := c.Tags(t.Context(), registrytest.Repo(t, tc.repo))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
			if n := srv.Count(http.MethodGet, tc.wantPath); n != 1 {
				t.Errorf("GET %s seen %d times, want 1; requests: %v", tc.wantPath, n, srv.Requests())
			}
			// http:// was written, so there is no https attempt to fail.
			want := []registry.HostStats{{Host: srv.Host(), Requests: len(srv.Requests()), Ping: 1, Tags: 1}}
			if diff := cmp.Diff(want, c.Stats()); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMirrorSchemeIsWhatTheURLSays(t *testing.T) {
	srv := registrytest.NewServer(t) // plain http
	pushTags(t, srv, "library/nginx", "1.26.1")

	// go-containerregistry would fall back to http for 127.0.0.1 by itself;
	// a mirror written https must never be spoken to in plain text.
	c := newClient(registry.WithMirrors(map[string]string{"docker.io": "https://" + srv.Host()}),
		registry.WithRetry(0, 0))
	if _, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/library/nginx")); err == nil {
		t.Fatal("Tags over https from a plain http server succeeded")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server answered %d plain-http requests for an https mirror: %v", n, srv.Requests())
	}
}

func TestMirrorURLErrors(t *testing.T) {
	tests := []struct{ name, url, want string }{
		{"scheme", "ftp://mirror.example.com", "scheme must be http or https"},
		{"no host", "https:///docker.io", "no host"},
		{"credentials", "https://user:s3cret@mirror.example.com", "credentials belong in WithCredentials"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(registry.WithMirrors(map[string]string{"docker.io": tc.url}))
			_, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/library/nginx"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
			if !strings.HasPrefix(err.Error(), "list tags docker.io/library/nginx: ") {
				t.Errorf("error %q does not name the operation and repository", err)
			}
		})
	}
}

// TestDockerHubAliasesAreOneRegistry: Docker Hub's three names (Argo CD
// writes registry-1.docker.io for Docker Hub's OCI charts) share one
// mirror, whichever name the mirror is keyed by, and one listing.
func TestDockerHubAliasesAreOneRegistry(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "bitnamicharts/nginx", "18.1.0")
	raw := func(s string) name.Repository {
		r, err := name.NewRepository(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, key := range []string{"docker.io", "index.docker.io", "registry-1.docker.io"} {
		t.Run(key, func(t *testing.T) {
			srv.Reset()
			c := newClient(registry.WithMirrors(map[string]string{key: srv.URL()}))
			for _, repo := range []name.Repository{
				registrytest.Repo(t, "registry-1.docker.io/bitnamicharts/nginx"),
				raw("registry-1.docker.io/bitnamicharts/nginx"), // not parsed by imagename
				registrytest.Repo(t, "docker.io/bitnamicharts/nginx"),
				raw("index.docker.io/bitnamicharts/nginx"),
			} {
				got, err := c.Tags(t.Context(), repo)
				if err != nil {
					t.Fatalf("%s: %v", repo, err)
				}
				if diff := cmp.Diff([]string{"18.1.0"}, got); diff != "" {
					t.Errorf("%s tags (-want +got):\n%s", repo, diff)
				}
			}
			if n := srv.Count(http.MethodGet, "/v2/bitnamicharts/nginx/tags/list"); n != 1 {
				t.Errorf("tags listed %d times, want once for the four names; requests: %v", n, srv.Requests())
			}
		})
	}
}
