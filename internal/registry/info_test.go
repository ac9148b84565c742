package registry_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

func TestInfo(t *testing.T) {
	srv := registrytest.NewServer(t)
	labels := map[string]string{
		"org.opencontainers.image.source":  "https://github.com/acme/api",
		"org.opencontainers.image.version": "v1.9.0",
	}
	imgDigest := srv.Push(t, "acme/api", "v1.9.0", registrytest.Image(t, "api", created, labels))
	idxDigest := srv.PushIndex(t, "library/nginx", "1.26.1",
		registrytest.Index(t, "nginx", created, labels, "linux/amd64", "linux/arm64/v8"))

	tests := []struct {
		name, repo, tag string
		want            *registry.Info
		wantGET         int // manifests and blobs
	}{
		{name: "image", repo: "acme/api", tag: "v1.9.0", wantGET: 2, want: &registry.Info{
			Digest: imgDigest, Created: created, Labels: labels, Platforms: []string{"linux/amd64"},
		}},
		{name: "index: first platform's config, every platform", repo: "library/nginx", tag: "1.26.1", wantGET: 3,
			want: &registry.Info{
				Digest: idxDigest, Created: created, Labels: labels,
				Platforms: []string{"linux/amd64", "linux/arm64/v8"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			c := newClient()
			ref := srv.Host() + "/" + tc.repo
			for range 2 {
				got, err := c.Info(t.Context(), registrytest.Tag(t, ref, tc.tag))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Info (-want +got):\n%s", diff)
				}
				got.Labels["mutated"] = "by caller" // must not leak into the cache
			}
			// The manifest GET already named the digest.
			if d, err := c.Digest(t.Context(), registrytest.Tag(t, ref, tc.tag)); err != nil || d != tc.want.Digest {
				t.Errorf("Digest after Info = %s, %v; want %s", d, err, tc.want.Digest)
			}
			gets := srv.Count(http.MethodGet, "/manifests/") + srv.Count(http.MethodGet, "/blobs/")
			if gets != tc.wantGET || srv.Count(http.MethodHead, "") != 0 {
				t.Errorf("GETs = %d, HEADs = %d; want %d GETs, once per tag, and no HEAD",
					gets, srv.Count(http.MethodHead, ""), tc.wantGET)
			}
		})
	}
}

// TestInfoChart: a Helm chart's Info carries what its config blob says
// (name, version, appVersion, home, sources), read once per digest, and
// its created time from Helm's annotation.
func TestInfoChart(t *testing.T) {
	srv := registrytest.NewServer(t)
	ch := helmrepotest.Chart{Name: "podinfo", Version: "6.6.0+build.1", AppVersion: "6.6.0", Home: "https://podinfo.example.com",
		Sources: []string{"https://github.com/stefanprodan/podinfo"}}
	digest := srv.Push(t, "charts/podinfo", "6.6.0_build.1", registrytest.Chart(t, ch, created))
	c := newClient()
	for range 2 {
		got, err := c.Info(t.Context(), registrytest.Tag(t, srv.Host()+"/charts/podinfo", "6.6.0_build.1"))
		if err != nil {
			t.Fatal(err)
		}
		want := &registry.Info{Digest: digest, Created: created, Chart: &registry.ChartInfo{
			Name: "podinfo", Version: "6.6.0+build.1", AppVersion: "6.6.0", Home: "https://podinfo.example.com",
			Sources: []string{"https://github.com/stefanprodan/podinfo"}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Info (-want +got):\n%s", diff)
		}
		got.Chart.Sources[0] = "mutated by caller" // must not leak into the cache
	}
	if gets := srv.Count(http.MethodGet, "/manifests/") + srv.Count(http.MethodGet, "/blobs/"); gets != 2 {
		t.Errorf("%d GETs, want 2: the manifest and the config, once", gets)
	}
}
