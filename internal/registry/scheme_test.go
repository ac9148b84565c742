package registry_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestOneHostOneScheme: two mirrors on one host with different schemes
// made https mirrors be spoken to over plain http at random (a per-host
// scheme map, last write wins). The Client refuses the configuration, and
// no lookup sends anything.
func TestOneHostOneScheme(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "docker.io/library/nginx", "1.26.1")
	pushTags(t, srv, "ghcr.io/acme/api", "1.0.0")
	// Map order decides nothing: every run of NewClient must refuse.
	for range 20 {
		c := newClient(registry.WithMirrors(map[string]string{
			"docker.io": "https://" + srv.Host() + "/docker.io",
			"ghcr.io":   srv.URL() + "/ghcr.io",
		}))
		err := c.Err()
		if err == nil || !strings.Contains(err.Error(), "one host with two schemes") ||
			!strings.Contains(err.Error(), "docker.io") || !strings.Contains(err.Error(), "ghcr.io") {
			t.Fatalf("Err = %v, want the conflict named with both registries", err)
		}
		for _, repo := range []string{"docker.io/library/nginx", "ghcr.io/acme/api"} {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err == nil || !strings.Contains(err.Error(), "two schemes") {
				t.Errorf("Tags %s: %v, want the configuration error", repo, err)
			}
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server received %d requests, want none: %v", n, srv.Requests())
	}

	same := newClient(registry.WithMirrors(map[string]string{
		"docker.io": srv.URL() + "/docker.io",
		"ghcr.io":   srv.URL() + "/ghcr.io",
	}))
	if err := same.Err(); err != nil {
		t.Errorf("two http:// mirrors on one host: %v", err)
	}
}

// TestHTTPSNeverDowngraded: a host without a mirror is spoken to over
// https only, unless it is a loopback address (as Docker allows); a
// private address over plain http needs a mirror written with http://.
func TestHTTPSNeverDowngraded(t *testing.T) {
	var plain atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { plain.Add(1) }))
	defer srv.Close()
	port := srv.Listener.Addr().String()[strings.LastIndex(srv.Listener.Addr().String(), ":"):]
	// 10.255.255.1 is never this machine: the https attempt fails to
	// connect, and go-containerregistry on its own would then try http.
	c := newClient(registry.WithTimeout(5*time.Second), registry.WithRetry(0, 0),
		registry.WithTransport(redirectTo(srv.Listener.Addr().String())))
	_, err := c.Tags(t.Context(), registrytest.Repo(t, "10.255.255.1"+port+"/acme/api"))
	if err == nil {
		t.Fatal("Tags over http on a private address succeeded without a mirror saying http://")
	}
	if n := plain.Load(); n != 0 {
		t.Errorf("the plain-http server answered %d requests for a host spoken to over https", n)
	}
}

// redirectTo dials addr whatever the request's host, so that a test can
// pretend to be any address; https requests then fail the TLS handshake.
func redirectTo(addr string) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	dial := t.DialContext
	t.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) { return dial(ctx, network, addr) }
	return t
}

// TestPlainHTTPBehindHTTPSMirror: a mirror written https:// that answers in
// plain http fails with a message naming the host and the cure, instead of
// net/http's "server gave HTTP response to HTTPS client" alone; and it is
// not retried over http.
func TestPlainHTTPBehindHTTPSMirror(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "docker.io/library/nginx", "1.26.1")
	c := newClient(registry.WithRetry(0, 0),
		registry.WithMirrors(map[string]string{"docker.io": "https://" + srv.Host() + "/docker.io"}))
	_, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/library/nginx"))
	want := srv.Host() + " answers in plain http, not https: if that is intended, write http:// explicitly in the mirror URL"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "mirror: http://"+srv.Host()) {
		t.Errorf("Tags = %v, want an error with %q", err, want)
	}
	if n := srv.Count(http.MethodGet, "/tags/list"); n != 0 {
		t.Errorf("%d tags listings reached the server over http", n)
	}
}
