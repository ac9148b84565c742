package chartrepo_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/chartrepo"
)

const secret = "s3cr3t-password"

// TestFaults: whatever a repository does, the lookup ends within its
// bounds with an error naming the repository URL, the status when one
// came and what to check, and never a credential.
func TestFaults(t *testing.T) {
	const index = "apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n"
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		status   int
		want     string
		requests int // 0: not checked
	}{
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, 404, "check the repository URL", 1},
		{"401", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusUnauthorized) }, http.StatusUnauthorized, "wants credentials", 1},
		{"403", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) }, http.StatusForbidden, "wants credentials", 1},
		{"HTML by type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("apiVersion: v1\n"))
		}, 200, "HTML page", 1},
		{"HTML by content", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("<!doctype html><form>login</form>"))
		}, 200, "HTML page", 1},
		{"not YAML", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("\x00\x01binary: [")) }, 200, "not a Helm repository index", 1},
		{"huge by length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "2000000")
			w.Write([]byte(index))
		}, 200, "over the 1 MiB allowed", 1},
		{"huge without length", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(index))
			for range 300 {
				w.Write([]byte("# " + strings.Repeat("x", 4096) + "\n"))
			}
		}, 200, "over the 1 MiB allowed", 1},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/other/../index.yaml", http.StatusFound)
		}, 0, "redirect loop", 2},
		{"endless redirects", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		}, 0, "more than 10 redirects", 11},
		{"429 beyond the cap", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}, 0, "asks to wait 1h0m0s (Retry-After)", 1},
		{"500, retried", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, 500, "server failed", 3},
		{"hanging", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, 0, "no index within 200ms", 0},
		{"hanging body", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("apiVersion: v1\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, 200, "no index within 200ms", 0},
		{"no such chart", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("apiVersion: v1\nentries:\n  b:\n  - version: 1.0.0\n"))
		}, 0, `chart "a": no such chart`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The hanging handler is still running when the client gives up.
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); tc.handler(w, r) }))
			defer srv.Close()
			c := chartrepo.New(chartrepo.WithMaxIndexBytes(1<<20), chartrepo.WithTimeout(200*time.Millisecond), chartrepo.WithRetry(2, time.Millisecond),
				chartrepo.WithCredentials(map[string]chartrepo.Credentials{srv.Listener.Addr().String(): {Username: "u", Password: secret}}))
			repoURL := strings.Replace(srv.URL, "http://", "http://u:"+secret+"@", 1) + "/charts"
			start := time.Now()
			_, err := c.Versions(t.Context(), repoURL, "a")
			checkError(t, err, srv.URL+"/charts", tc.want, tc.status)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s", took)
			}
			if tc.requests > 0 && n.Load() != int64(tc.requests) {
				t.Errorf("%d requests, want %d", n.Load(), tc.requests)
			}
			// The failure is remembered: no second request this run.
			before := n.Load()
			c.Versions(t.Context(), repoURL, "a")
			if n.Load() != before {
				t.Errorf("asked again after a failure")
			}
		})
	}
}

func checkError(t *testing.T, err error, repo, want string, status int) {
	t.Helper()
	var e *chartrepo.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *chartrepo.Error", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "chart repository "+repo+": ") || !strings.Contains(msg, want) {
		t.Errorf("err = %q, want it to name %s and say %q", msg, repo, want)
	}
	if strings.Contains(msg, secret) {
		t.Errorf("err = %q shows the password", msg)
	}
	if e.Status != status {
		t.Errorf("status %d, want %d", e.Status, status)
	}
}

// TestUnreachable: a repository nobody answers for.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := chartrepo.New(chartrepo.WithRetry(0, time.Millisecond)).Versions(t.Context(), srv.URL, "a")
	checkError(t, err, srv.URL, "connection refused", 0)
}

// TestRedirects: credentials go to the repository's own host only, and
// https is never downgraded.
func TestRedirects(t *testing.T) {
	const index = "apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n"
	var sawAuth bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _, sawAuth = r.BasicAuth()
		w.Write([]byte(index))
	}))
	defer other.Close()
	var ownAuth string
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, ownAuth, _ = r.BasicAuth()
		http.Redirect(w, r, other.URL+"/cdn/index.yaml", http.StatusFound)
	}))
	defer own.Close()
	c := chartrepo.New(chartrepo.WithCredentials(map[string]chartrepo.Credentials{own.Listener.Addr().String(): {Username: "u", Password: secret}}))
	if _, err := c.Versions(t.Context(), own.URL, "a"); err != nil {
		t.Fatal(err)
	}
	if ownAuth != secret || sawAuth {
		t.Errorf("password to its own host: %v; credentials to the host redirected to: %v", ownAuth == secret, sawAuth)
	}

	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/index.yaml", http.StatusMovedPermanently)
	}))
	defer tls.Close()
	_, err := chartrepo.New(chartrepo.WithTransport(tls.Client().Transport)).Versions(t.Context(), tls.URL, "a")
	checkError(t, err, tls.URL, "never downgraded to http", 0)
}
