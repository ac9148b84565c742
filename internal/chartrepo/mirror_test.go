package chartrepo_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// artifactory serves the repository behind it under prefix, as
// Artifactory's and Nexus's remote Helm repositories do
// (/artifactory/api/helm/bitnami-remote), and records what it was asked.
type artifactory struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	auth  []string
}

func newArtifactory(t *testing.T, backend *helmrepotest.Server, prefix string) *artifactory {
	u, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	a := &artifactory{}
	proxy := http.StripPrefix(prefix, httputil.NewSingleHostReverseProxy(u))
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.paths = append(a.paths, r.URL.Path)
		a.auth = append(a.auth, r.Header.Get("Authorization"))
		a.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

// TestMirrors: a registries key with a path prefix maps that prefix of
// chart repository URLs to its mirror, a bare host maps the whole host,
// the longest prefix wins and fits whole segments only; the mirror's
// credentials go to the mirror, the repository's never do, and the
// repository itself is never contacted (its hosts do not resolve here).
func TestMirrors(t *testing.T) {
	const prefix = "/artifactory/api/helm/bitnami-remote"
	backend := helmrepotest.New(t, charts(), helmrepotest.WithBasicAuth("mirror-bot", "mirror-secret"))
	front := newArtifactory(t, backend, prefix)
	host := strings.TrimPrefix(front.URL, "http://")
	tests := []struct {
		name     string
		mirrors  map[string]string
		repo     string
		wantPath string
		wantErr  string
	}{
		{name: "host and path", mirrors: map[string]string{"charts.bitnami.com/bitnami": front.URL + prefix},
			repo: "https://charts.bitnami.com/bitnami", wantPath: prefix + "/index.yaml"},
		{name: "trailing slashes", mirrors: map[string]string{"charts.bitnami.com/bitnami/": front.URL + prefix + "/"},
			repo: "https://charts.bitnami.com/bitnami/", wantPath: prefix + "/index.yaml"},
		{name: "bare host keeps the path", mirrors: map[string]string{"Charts.Example.com": front.URL + "/artifactory/api/helm"},
			repo: "https://charts.example.com/bitnami-remote", wantPath: prefix + "/index.yaml"},
		{name: "longest prefix wins", mirrors: map[string]string{
			"charts.example.com":        front.URL + "/elsewhere",
			"charts.example.com/stable": front.URL + prefix,
		}, repo: "http://charts.example.com/stable", wantPath: prefix + "/index.yaml"},
		{name: "whole segments only", mirrors: map[string]string{"charts.example.com/bit": front.URL + prefix},
			repo: "https://charts.example.com/bitnami", wantErr: "charts.example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front.mu.Lock()
			front.paths, front.auth = nil, nil
			front.mu.Unlock()
			c := chartrepo.New(
				chartrepo.WithMirrors(tc.mirrors),
				chartrepo.WithCredentials(map[string]chartrepo.Credentials{
					host:                 {Username: "mirror-bot", Password: "mirror-secret"},
					"charts.bitnami.com": {Username: "bitnami-user", Password: "for-bitnami-itself"},
					"charts.example.com": {Username: "example-user", Password: "for-example-itself"},
				}),
				chartrepo.WithLocalHosts(nil), // the mirror on 127.0.0.1 is allowed: it is written
				chartrepo.WithRetry(0, 0),
			)
			ch, err := c.Versions(t.Context(), tc.repo, "nginx")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || len(front.paths) != 0 {
					t.Fatalf("err = %v, mirror asked %v; want an error about %s and no request to the mirror", err, front.paths, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.Versions) != 3 || ch.Repository != strings.TrimRight(tc.repo, "/") {
				t.Errorf("got %d versions of %s, want 3 of the repository as written", len(ch.Versions), ch.Repository)
			}
			front.mu.Lock()
			defer front.mu.Unlock()
			if len(front.paths) != 1 || front.paths[0] != tc.wantPath {
				t.Errorf("mirror asked %v, want [%s]", front.paths, tc.wantPath)
			}
			for _, a := range front.auth {
				if a != basic("mirror-bot", "mirror-secret") {
					t.Errorf("mirror got Authorization %q, want the mirror's own credentials", a)
				}
			}
		})
	}
}

// TestMirrorErrorNamesBoth: a failing mirror's error names the repository
// as written and the mirror that failed.
func TestMirrorErrorNamesBoth(t *testing.T) {
	backend := helmrepotest.New(t, charts(), helmrepotest.WithBasicAuth("mirror-bot", "mirror-secret"))
	c := chartrepo.New(chartrepo.WithMirrors(map[string]string{"charts.bitnami.com/bitnami": backend.URL}), chartrepo.WithRetry(0, 0))
	_, err := c.Versions(t.Context(), "https://charts.bitnami.com/bitnami", "nginx")
	want := "chart repository https://charts.bitnami.com/bitnami (through its mirror " + backend.URL + "): GET index.yaml answered 401"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to start with %q", err, want)
	}
}

func basic(user, password string) string {
	r, _ := http.NewRequest(http.MethodGet, "http://x", nil)
	r.SetBasicAuth(user, password)
	return r.Header.Get("Authorization")
}
