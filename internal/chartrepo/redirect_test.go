package chartrepo_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/chartrepo"
)

// TestRedirectToAnotherPortGetsNoCredentials: a repository that redirects
// its index to another port of its own host gets no credentials sent
// there, and the error says why (issue 25, item 1).
func TestRedirectToAnotherPortGetsNoCredentials(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		http.Error(w, "who are you?", http.StatusUnauthorized)
	}))
	defer other.Close()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/index.yaml", http.StatusFound)
	}))
	defer own.Close()
	c := chartrepo.New(chartrepo.WithCredentials(map[string]chartrepo.Credentials{own.Listener.Addr().String(): {Username: "u", Password: secret}}))
	_, err := c.Versions(t.Context(), own.URL, "a")
	if err == nil || !strings.Contains(err.Error(), "never through a redirect to another") {
		t.Errorf("Versions: %v, want it to say the credentials were not sent", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Get("Authorization") != "" {
		t.Errorf("the other port got %v, want one request without credentials", seen)
	}
}
