package registry_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// gets counts the GETs of manifests and blobs, the requests the gates pay.
type gets struct{ Manifests, Blobs, Heads int }

func countGets(srv *registrytest.Server) gets {
	return gets{
		Manifests: srv.Count(http.MethodGet, "/manifests/"),
		Blobs:     srv.Count(http.MethodGet, "/blobs/"),
		Heads:     srv.Count(http.MethodHead, "/manifests/"),
	}
}

func TestFacts(t *testing.T) {
	srv := registrytest.NewServer(t)
	epoch := time.Unix(0, 0).UTC()
	annotated := "2024-06-01T10:00:00Z"
	amd := registrytest.PlatformImage(t, "multi", "linux/amd64", created, nil)
	arm := registrytest.PlatformImage(t, "multi", "linux/arm64/v8", created.Add(5*time.Hour), nil)
	pushed := map[string]string{
		"single": srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "api", created, nil)),
		"index":  srv.PushIndex(t, "acme/api", "2.0.0", registrytest.IndexOf(t, amd, arm)),
		"manifest annotation": srv.Push(t, "acme/api", "3.0.0", mutate.Annotations(
			registrytest.Image(t, "repro", epoch, nil), map[string]string{"org.opencontainers.image.created": annotated}).(v1.Image)),
		"index annotation": srv.PushIndex(t, "acme/api", "4.0.0", mutate.Annotations(
			registrytest.Index(t, "repro", time.Time{}, nil, "linux/amd64", "linux/arm64"),
			map[string]string{"org.opencontainers.image.created": annotated}).(v1.ImageIndex)),
		"label":   srv.Push(t, "acme/api", "5.0.0", registrytest.Image(t, "label", epoch, map[string]string{"org.opencontainers.image.created": annotated})),
		"unknown": srv.Push(t, "acme/api", "6.0.0", registrytest.Image(t, "repro", epoch, nil)),
	}
	at, _ := time.Parse(time.RFC3339, annotated)
	tests := []struct {
		name, tag string
		need      imagefacts.Need
		want      imagefacts.Facts
		cost      gets
	}{
		{name: "single", tag: "1.0.0", need: 0, want: imagefacts.Facts{}, cost: gets{Manifests: 1}},
		{name: "single", tag: "1.0.0", need: imagefacts.NeedCreated | imagefacts.NeedPlatforms | imagefacts.NeedNewest,
			want: imagefacts.Facts{Created: created, CreatedFrom: imagefacts.FromConfig, Newest: created, Platforms: []string{"linux/amd64"}},
			cost: gets{Manifests: 1, Blobs: 1}},
		{name: "index", tag: "2.0.0", need: imagefacts.NeedPlatforms,
			want: imagefacts.Facts{Platforms: []string{"linux/amd64", "linux/arm64/v8"}}, cost: gets{Manifests: 1}},
		{name: "index", tag: "2.0.0", need: imagefacts.NeedCreated,
			want: imagefacts.Facts{Created: created, CreatedFrom: imagefacts.FromConfig, Platforms: []string{"linux/amd64", "linux/arm64/v8"}},
			cost: gets{Manifests: 2, Blobs: 1}},
		{name: "index", tag: "2.0.0", need: imagefacts.NeedNewest,
			want: imagefacts.Facts{Created: created, CreatedFrom: imagefacts.FromConfig, Newest: created.Add(5 * time.Hour), Platforms: []string{"linux/amd64", "linux/arm64/v8"}},
			cost: gets{Manifests: 3, Blobs: 2}},
		{name: "manifest annotation", tag: "3.0.0", need: imagefacts.NeedCreated,
			want: imagefacts.Facts{Created: at, CreatedFrom: imagefacts.FromAnnotation, Platforms: []string{"linux/amd64"}, Newest: at}, cost: gets{Manifests: 1, Blobs: 1}},
		{name: "index annotation", tag: "4.0.0", need: imagefacts.NeedCreated,
			want: imagefacts.Facts{Created: at, CreatedFrom: imagefacts.FromAnnotation, Platforms: []string{"linux/amd64", "linux/arm64"}}, cost: gets{Manifests: 2, Blobs: 1}},
		{name: "label", tag: "5.0.0", need: imagefacts.NeedCreated,
			want: imagefacts.Facts{Created: at, CreatedFrom: imagefacts.FromLabel, Platforms: []string{"linux/amd64"}, Newest: at}, cost: gets{Manifests: 1, Blobs: 1}},
		{name: "unknown", tag: "6.0.0", need: imagefacts.NeedCreated,
			want: imagefacts.Facts{Created: epoch, Platforms: []string{"linux/amd64"}}, cost: gets{Manifests: 1, Blobs: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			c := newClient(viaMirror(srv))
			tc.want.Digest = pushed[tc.name]
			for range 2 {
				got, err := c.Facts(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", tc.tag), tc.need)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Facts (-want +got):\n%s", diff)
				}
			}
			// By digest, and the tag's digest: nothing more.
			if _, err := c.Facts(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", tc.want.Digest), tc.need); err != nil {
				t.Fatal(err)
			}
			if d, err := c.Digest(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", tc.tag)); err != nil || d != tc.want.Digest {
				t.Errorf("Digest = %s, %v; want %s", d, err, tc.want.Digest)
			}
			if got := countGets(srv); got != tc.cost {
				t.Errorf("requests %+v, want %+v: each manifest and config once", got, tc.cost)
			}
		})
	}
}

// TestFactsShared: what the gates fetched, a PR body (Info) and the
// signature check (Fetcher) read again for free, and the other way round.
func TestFactsShared(t *testing.T) {
	srv := registrytest.NewServer(t)
	d := srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "api", created, map[string]string{"a": "b"}))
	c := newClient(viaMirror(srv))
	if _, err := c.Digest(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.0.0")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Facts(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.0.0"), imagefacts.NeedCreated); err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.0.0"))
	if err != nil || info.Labels["a"] != "b" || info.Digest != d {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	if _, _, err := c.Manifest(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", d)); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Exists(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", d)); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
	// The HEAD named the digest, so the manifest was read by digest.
	want := gets{Heads: 1, Manifests: 1, Blobs: 1}
	if got := countGets(srv); got != want {
		t.Errorf("requests %+v, want %+v", got, want)
	}
	if got := srv.Count(http.MethodGet, "/manifests/"+d); got != 1 {
		t.Errorf("GETs by digest = %d, want 1", got)
	}
	st := c.Stats()[0]
	if st.ManifestGet != 1 || st.Blob != 1 || st.ManifestHead != 1 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestFactsNotFound(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "1.0.0")
	c := newClient(viaMirror(srv))
	for _, ref := range []string{"9.9.9", "sha256:0000000000000000000000000000000000000000000000000000000000000000"} {
		_, err := c.Facts(t.Context(), registrytest.Ref(t, "ghcr.io/acme/api", ref), imagefacts.NeedCreated)
		if !errors.Is(err, gate.ErrNotFound) {
			t.Errorf("Facts(%s) = %v, want gate.ErrNotFound", ref, err)
		}
	}
	srv.Fail("/manifests/", http.StatusForbidden, 0, nil)
	if _, err := c.Facts(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", "1.0.0"), 0); err == nil || errors.Is(err, gate.ErrNotFound) {
		t.Errorf("Facts on a 403 = %v, want an error other than not found", err)
	}
}

func TestExists(t *testing.T) {
	srv := registrytest.NewServer(t)
	d := srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "api", created, nil))
	gone := srv.Push(t, "acme/api", "0.9.0", registrytest.Image(t, "old", created, nil))
	srv.Fail("/manifests/"+gone, http.StatusNotFound, 0, nil)
	c := newClient(viaMirror(srv))
	for range 2 {
		if ok, err := c.Exists(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", d)); !ok || err != nil {
			t.Errorf("Exists(pushed) = %v, %v; want true", ok, err)
		}
		if ok, err := c.Exists(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", gone)); ok || err != nil {
			t.Errorf("Exists(deleted) = %v, %v; want false, no error", ok, err)
		}
	}
	if got := countGets(srv); got != (gets{Heads: 2}) {
		t.Errorf("requests %+v, want one HEAD per digest", got)
	}
	srv.Fail("/manifests/", http.StatusInternalServerError, 0, nil)
	c = newClient(viaMirror(srv), registry.WithRetry(0, time.Millisecond))
	if _, err := c.Exists(t.Context(), registrytest.Digest(t, "ghcr.io/acme/api", d)); err == nil {
		t.Error("Exists on a 500: no error, want one: the registry could not tell")
	}
}
