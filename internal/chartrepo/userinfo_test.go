package chartrepo_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// TestURLCredentials (issue 25 item 3): the credentials written in a
// repository URL (http://USER:PASSWORD@host/charts) authenticate the
// index request to that host, and go nowhere else: not into the Chart,
// not into an error, not to a host a redirect leads to, and what they
// read is not kept in the cache for a request without them.
func TestURLCredentials(t *testing.T) {
	repo := helmrepotest.New(t, charts(), helmrepotest.WithBasicAuth("bot", secret))
	host := strings.TrimPrefix(repo.URL, "http://")
	c := chartrepo.New()
	ch, err := c.Versions(t.Context(), "http://bot:"+secret+"@"+host+"/", "nginx")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Repository != repo.URL || len(ch.Versions) != 3 {
		t.Errorf("chart %q with %d versions, want %q with 3", ch.Repository, len(ch.Versions), repo.URL)
	}
	// The same repository asked for without them, or with others, is
	// refused: the index fetched with the password is not theirs.
	for _, u := range []string{repo.URL, "http://bot:wrong-" + secret + "@" + host} {
		_, err := c.Versions(t.Context(), u, "nginx")
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: err = %v, want a 401 that does not quote the password", strings.ReplaceAll(u, secret, "SECRET"), err)
		}
	}

	// The cache never answers for an index read with a URL's credentials:
	// another run asking without them is asked for them.
	store, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.New(chartrepo.WithCache(store)).Versions(t.Context(), "http://bot:"+secret+"@"+host, "nginx"); err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.New(chartrepo.WithCache(store)).Versions(t.Context(), repo.URL, "nginx"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without credentials after a run with them: err = %v, want a 401, not the cached index", err)
	}

	var sawAuth bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, sawAuth = r.BasicAuth()
		w.Write([]byte("apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n"))
	}))
	defer other.Close()
	var ownAuth string
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, ownAuth, _ = r.BasicAuth()
		http.Redirect(w, r, other.URL+"/cdn/index.yaml", http.StatusFound)
	}))
	defer own.Close()
	ch, err = chartrepo.New().Versions(t.Context(), "http://bot:"+secret+"@"+strings.TrimPrefix(own.URL, "http://"), "a")
	if err != nil {
		t.Fatal(err)
	}
	if ownAuth != secret || sawAuth || ch.Repository != own.URL {
		t.Errorf("password to its own host: %v; credentials to the host redirected to: %v; repository %q", ownAuth == secret, sawAuth, ch.Repository)
	}
}
