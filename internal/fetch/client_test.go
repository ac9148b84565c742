package fetch_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/fetch"
)

// client is a fetch.Client allowing hosts, with short retries.
func client(hosts []string, opts ...fetch.Option[struct{}]) *fetch.Client {
	o := fetch.Defaults(1<<20, struct{}{})
	for _, opt := range append([]fetch.Option[struct{}]{fetch.WithLocalHosts[struct{}](hosts), fetch.WithRetry[struct{}](1, time.Millisecond)}, opts...) {
		opt(&o)
	}
	return fetch.New(o.Settings, "the answer", nil)
}

func get(t *testing.T, c *fetch.Client, raw string) (*http.Response, error) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	plain := *u
	plain.User = nil
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, plain.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.HTTP(u).Do(req)
	if err != nil {
		return nil, fetch.Plain(err)
	}
	return resp, nil
}

func hostOf(s string) string { u, _ := url.Parse(s); return u.Host }

// TestRedirectRules: every client that uses fetch follows a redirect at
// most 10 times, without a loop, never to another scheme than http(s),
// never to a local host the config does not name; and its errors say so
// without net/http's "Get URL:".
func TestRedirectRules(t *testing.T) {
	var other atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { other.Add(1) }))
	defer elsewhere.Close()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/x/../loop", http.StatusFound)
		case "/ftp":
			http.Redirect(w, r, "ftp://example.com/", http.StatusFound)
		case "/local":
			http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1), http.StatusFound)
		default:
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		}
	}))
	defer srv.Close()
	c := client([]string{hostOf(srv.URL)})
	for _, tc := range []struct {
		path, want string
		requests   int64
	}{
		{"/loop", "redirect loop", 1},
		{"/endless", "more than 10 redirects", 11},
		{"/ftp", "not http or https", 1},
		{"/local", "named only in a manifest", 1},
	} {
		n.Store(0)
		_, err := get(t, c, srv.URL+tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "Get ") || n.Load() != tc.requests {
			t.Errorf("%s: %v after %d requests, want %q after %d", tc.path, err, n.Load(), tc.want, tc.requests)
		}
	}
	if other.Load() != 0 {
		t.Errorf("the local host the config does not name got %d requests", other.Load())
	}
}

// TestNoDowngrade: a redirect from https to http is refused before a
// request is sent.
func TestNoDowngrade(t *testing.T) {
	var plain atomic.Int64
	insecure := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { plain.Add(1) }))
	defer insecure.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, insecure.URL+"/index.yaml", http.StatusFound)
	}))
	defer tls.Close()
	o := fetch.Defaults(1<<20, struct{}{})
	o.Transport = tls.Client().Transport
	_, err := get(t, fetch.New(o.Settings, "the answer", nil), tls.URL+"/index.yaml")
	if err == nil || !strings.Contains(err.Error(), "never downgraded to http") || plain.Load() != 0 {
		t.Errorf("%v with %d requests over http, want the redirect refused", err, plain.Load())
	}
}

// TestCredentialsOwnOrigin: the credentials a URL is written with come
// first, then the config's for its host; neither goes to another port,
// nor the URL redirected from (Referer).
func TestCredentialsOwnOrigin(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization") + r.Header.Get("Referer"); a != "" {
			leaked.Store(a)
		}
	}))
	defer other.Close()
	var got []string
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		got = append(got, u+":"+p)
		http.Redirect(w, r, other.URL+"/next", http.StatusFound)
	}))
	defer own.Close()
	c := client([]string{hostOf(own.URL), hostOf(other.URL)},
		fetch.WithCredentials[struct{}](map[string]fetch.Credentials{hostOf(own.URL): {Username: "config", Password: "c"}}))
	for _, raw := range []string{own.URL + "/a", strings.Replace(own.URL, "http://", "http://url:u@", 1) + "/a"} {
		if _, err := get(t, c, raw); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, " ") != "config:c url:u" || leaked.Load() != nil {
		t.Errorf("own host got %v, the other port %v; want the config's, then the URL's, and nothing elsewhere", got, leaked.Load())
	}
}

// TestCapAndRetryAfter: a body over the cap fails its reads, with the
// answer's status kept, whether it said its length or not; a Retry-After
// longer than the client waits fails at once, counted.
func TestCapAndRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", "2000000")
			w.Write([]byte("x"))
		case "/stream":
			for range 300 {
				w.Write([]byte(strings.Repeat("x", 4096)))
			}
		case "/slow-down":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	c := client([]string{hostOf(srv.URL)})
	for _, path := range []string{"/length", "/stream"} {
		resp, err := get(t, c, srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if over := fetch.Over(resp.Body); resp.StatusCode != 200 || !errors.Is(err, over) || !strings.Contains(err.Error(), "over the 1 MiB allowed") {
			t.Errorf("%s: status %d, read %v (Over: %v), want 200 and the cap", path, resp.StatusCode, err, over)
		}
	}
	_, err := get(t, c, srv.URL+"/slow-down")
	if err == nil || !strings.Contains(err.Error(), "asks to wait 1h0m0s (Retry-After)") {
		t.Errorf("429 beyond the wait: %v", err)
	}
	if s := c.Stats(); len(s) != 1 || s[0].Requests != 3 || s[0].Errors != 1 || s[0].Whole != 2 {
		t.Errorf("stats %+v, want 3 requests (the 429 once), 1 error, 2 whole", s)
	}
}
