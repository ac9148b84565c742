package registry_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestLocalHostsNamedInManifests: with WithLocalHosts, a registry on this
// machine or its private network is contacted only when allowed or
// mirrored; any other lookup fails with ErrLocalHost and sends nothing.
func TestLocalHostsNamedInManifests(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "1.0.0")
	repo := registrytest.Repo(t, srv.Host()+"/acme/api")

	c := newClient(registry.WithLocalHosts(nil))
	_, err := c.Tags(t.Context(), repo)
	if !errors.Is(err, registry.ErrLocalHost) || !strings.Contains(err.Error(), srv.Host()) || !strings.Contains(err.Error(), "name it in the config") {
		t.Errorf("Tags of a local host not allowed: %v, want ErrLocalHost naming the host and the cure", err)
	}
	for _, h := range []string{"localhost:5000", "169.254.169.254", "10.0.0.8:443", "[fd00::1]:5000", "100.100.100.200", "0.0.0.0:5000", "registry.localhost"} {
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, h+"/x")); !errors.Is(err, registry.ErrLocalHost) {
			t.Errorf("Tags on %s: %v, want ErrLocalHost", h, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the local registry received %d requests", n)
	}

	// Named: contacted.
	c = newClient(registry.WithLocalHosts([]string{srv.Host()}))
	if tags, err := c.Tags(t.Context(), repo); err != nil || len(tags) != 1 {
		t.Errorf("Tags of an allowed local host: %v, %v", tags, err)
	}
	// A mirror's host is named on purpose.
	c = newClient(registry.WithLocalHosts(nil), registry.WithMirrors(map[string]string{"docker.io": srv.URL() + "/docker.io"}))
	pushTags(t, srv, "docker.io/library/nginx", "1.0.0")
	if _, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/library/nginx")); err != nil {
		t.Errorf("Tags through a local mirror: %v", err)
	}
}

// recorder is a server that records the Authorization headers it gets.
type recorder struct {
	*httptest.Server
	reqs  atomic.Int32
	auths atomic.Int32
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.reqs.Add(1)
		if req.Header.Get("Authorization") != "" {
			r.auths.Add(1)
		}
		if h != nil {
			h(w, req)
			return
		}
		http.NotFound(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// dialing sends requests for the names in hosts to those addresses, and
// any other to where it names: remote names in a test on one machine.
func dialing(hosts map[string]string) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	dial := t.DialContext
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := hosts[addr]; ok {
			addr = to
		}
		return dial(ctx, network, addr)
	}
	return t
}

// TestRedirects: a remote registry cannot lead the client to a local
// address by a redirect; and a redirect to another host never carries the
// registry's credentials (go-containerregistry's transports set them only
// for the registry's own host).
func TestRedirects(t *testing.T) {
	local := newRecorder(t, nil)
	cdn := newRecorder(t, nil)
	const user, pass = "bot", "Red1rect5ecret"
	var sawCreds atomic.Int32
	remote := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="remote"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		sawCreds.Add(1)
		switch {
		case strings.Contains(r.URL.Path, "/local/"):
			http.Redirect(w, r, local.URL+r.URL.Path, http.StatusTemporaryRedirect)
		case strings.Contains(r.URL.Path, "/manifests/"):
			http.Redirect(w, r, "http://cdn.example"+r.URL.Path, http.StatusTemporaryRedirect)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	c := newClient(registry.WithLocalHosts(nil), registry.WithRetry(0, 0),
		registry.WithMirrors(map[string]string{"docker.io": "http://registry.example"}),
		registry.WithCredentials(map[string]registry.Credentials{"registry.example": {Username: user, Password: pass}}),
		registry.WithTransport(dialing(map[string]string{
			"registry.example:80": strings.TrimPrefix(remote.URL, "http://"),
			"cdn.example:80":      strings.TrimPrefix(cdn.URL, "http://"),
		})))

	// go-containerregistry refuses such a redirect itself; the Client's
	// own requests (tags listings) are refused by the Client.
	_, err := c.Digest(t.Context(), registrytest.Tag(t, "docker.io/local/app", "1.0"))
	if err == nil {
		t.Error("Digest redirected to a local address: no error")
	}
	_, err = c.Tags(t.Context(), registrytest.Repo(t, "docker.io/local/app"))
	if !errors.Is(err, registry.ErrLocalHost) {
		t.Errorf("Tags redirected to a local address: %v, want ErrLocalHost", err)
	}
	if n := local.reqs.Load(); n != 0 {
		t.Errorf("the local address received %d requests", n)
	}

	if _, err := c.Digest(t.Context(), registrytest.Tag(t, "docker.io/acme/app", "1.0")); err == nil {
		t.Error("Digest through a CDN that answers 404: no error")
	}
	if sawCreds.Load() == 0 || cdn.reqs.Load() == 0 {
		t.Fatalf("setup: the registry saw %d authenticated requests, the CDN %d requests", sawCreds.Load(), cdn.reqs.Load())
	}
	if n := cdn.auths.Load(); n != 0 {
		t.Errorf("the CDN received credentials %d times", n)
	}
}

// TestErrorBodiesCut: whatever answers an error, its body reaches a
// message cut to a short printable line: no terminal escapes, no page of
// HTML, for text and for the spec's JSON errors alike.
func TestErrorBodiesCut(t *testing.T) {
	page := "<html>\x1b[31mred\x1b[0m\r\n" + strings.Repeat("<p>filler</p>\n", 2000) + "END</html>"
	for name, body := range map[string]string{
		"text": page,
		"json": `{"errors":[{"code":"` + strings.Repeat("C", 500) + `","message":"` + strings.Repeat("m", 5000) + `\u001b[2J","detail":"` + strings.Repeat("d", 5000) + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v2/" {
					return
				}
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, body)
			})
			c := newClient(registry.WithRetry(0, 0), registry.WithMirrors(map[string]string{"docker.io": srv.URL}))
			_, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/acme/app"))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if len(msg) > 600 || strings.ContainsAny(msg, "\x1b\r\n") || strings.Contains(msg, "END") || strings.Contains(msg, "ddd") {
				t.Errorf("error of %d bytes: %q", len(msg), msg)
			}
			if name == "text" && !strings.Contains(msg, "403") {
				t.Errorf("error %q does not say the status", msg)
			}
		})
	}
}
