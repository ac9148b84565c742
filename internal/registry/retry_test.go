package registry_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// memServer is a registry on an in-memory network, for tests inside a
// synctest bubble: their waits and timeouts take no real time.
func memServer(t *testing.T, opts ...registrytest.Option) *registrytest.Server {
	t.Helper()
	return registrytest.NewServer(t, append(opts, registrytest.InMemory())...)
}

// memClient reaches srvs in memory, ghcr.io through the first of them.
func memClient(srvs []*registrytest.Server, opts ...registry.Option) *registry.Client {
	base := []registry.Option{viaMirror(srvs[0]), registry.WithTransport(registrytest.Transport(srvs...))}
	return newClient(append(base, opts...)...)
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		times      int
		header     http.Header
		maxWait    time.Duration // WithRetry's; 20ms unless set
		wantErr    string        // in the error
		wantStatus int           // of the transport.Error wrapped
		want       int           // tags/list requests
		took       time.Duration // in the bubble's time
	}{
		{name: "429 honours Retry-After", status: http.StatusTooManyRequests, times: 1,
			header: http.Header{"Retry-After": {"7"}}, maxWait: 30 * time.Second, want: 2, took: 7 * time.Second},
		{name: "Retry-After as HTTP date", status: http.StatusTooManyRequests, times: 1,
			header:  http.Header{"Retry-After": {time.Date(2000, 1, 1, 0, 0, 9, 0, time.UTC).Format(http.TimeFormat)}},
			maxWait: 30 * time.Second, want: 2, took: 9 * time.Second},
		{name: "Retry-After beyond the cap fails at once", status: http.StatusTooManyRequests, times: 1,
			header: http.Header{"Retry-After": {"3600"}}, maxWait: 30 * time.Second, want: 1,
			wantErr: "asks to wait 1h0m0s (Retry-After), longer than the 30s imagebot waits"},
		{name: "503 with a long Retry-After too", status: http.StatusServiceUnavailable, times: 1,
			header: http.Header{"Retry-After": {"600"}}, maxWait: 30 * time.Second, want: 1,
			wantErr: "answered 503 and asks to wait 10m0s"},
		{name: "503 retried then succeeds", status: http.StatusServiceUnavailable, times: 2, want: 3},
		{name: "503 retried a bounded number of times", status: http.StatusServiceUnavailable,
			wantStatus: http.StatusServiceUnavailable, want: 3},
		{name: "404 not retried", status: http.StatusNotFound, wantStatus: http.StatusNotFound, want: 1},
		{name: "401 not retried", status: http.StatusUnauthorized, wantStatus: http.StatusUnauthorized, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := memServer(t)
				pushTags(t, srv, "acme/api", "v1.0.0")
				srv.Fail("/tags/list", tc.status, tc.times, tc.header)
				c := memClient([]*registrytest.Server{srv}, registry.WithRetry(2, cmpOr(tc.maxWait, 20*time.Millisecond)))
				start := time.Now()
				_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
				if took := time.Since(start); tc.took > 0 && took != tc.took {
					t.Errorf("took %s, want %s", took, tc.took)
				}
				switch {
				case tc.wantErr == "" && tc.wantStatus == 0 && err != nil:
					t.Errorf("Tags: %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("Tags error = %v, want it to say %q", err, tc.wantErr)
				case tc.wantStatus != 0 && !isStatus(err, tc.wantStatus):
					t.Errorf("Tags error = %v, want a transport.Error with status %d", err, tc.wantStatus)
				}
				if n := srv.Count(http.MethodGet, "/tags/list"); n != tc.want {
					t.Errorf("tags/list requests = %d, want %d", n, tc.want)
				}
				errs := min(tc.want, tc.times)
				if tc.times == 0 {
					errs = tc.want
				}
				if tc.status == http.StatusUnauthorized {
					errs = 0 // a challenge, not a failure
				}
				want := registry.HostStats{Host: srv.Host(), Requests: 1 + tc.want, Errors: errs, Ping: 1, Tags: tc.want}
				if diff := cmp.Diff([]registry.HostStats{want}, c.Stats()); diff != "" {
					t.Errorf("Stats (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestRetryAfterBeyondTheCapRestsTheHost: once a registry asks for an
// hour's rest, the other lookups on it fail at once without a request, and
// the other hosts carry on.
func TestRetryAfterBeyondTheCapRestsTheHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limited, other := memServer(t), memServer(t)
		for _, srv := range []*registrytest.Server{limited, other} {
			pushTags(t, srv, "acme/a", "1.0.0")
			pushTags(t, srv, "acme/b", "1.0.0")
		}
		limited.Fail("/tags/list", http.StatusTooManyRequests, 0, http.Header{"Retry-After": {"3600"}})
		c := memClient([]*registrytest.Server{limited, other},
			registry.WithMirrors(map[string]string{"ghcr.io": limited.URL(), "quay.io": other.URL()}))
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/a")); err == nil {
			t.Fatal("Tags on a rate-limited registry succeeded")
		}
		_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/b"))
		if err == nil || !strings.Contains(err.Error(), "not asked again before then") {
			t.Errorf("second lookup: %v, want the rest asked for", err)
		}
		if n := limited.Count(http.MethodGet, "/tags/list"); n != 1 {
			t.Errorf("rate-limited registry got %d listings, want 1", n)
		}
		for _, repo := range []string{"quay.io/acme/a", "quay.io/acme/b"} {
			if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err != nil {
				t.Errorf("other host: %v", err)
			}
		}
		// After the hour, the host is asked again.
		time.Sleep(time.Hour)
		limited.Reset()
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/missing")); err == nil || strings.Contains(err.Error(), "not asked again") {
			t.Errorf("after the rest: %v, want the registry's own answer", err)
		}
	})
}

// hangFirst holds the first request of every path until it is cancelled,
// as a registry that stopped answering would.
type hangFirst struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]bool
}

func (h *hangFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	h.mu.Lock()
	first := !h.seen[req.URL.Path]
	h.seen[req.URL.Path] = true
	h.mu.Unlock()
	if first {
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
	return h.next.RoundTrip(req)
}

func TestTimeoutsAreRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushTags(t, srv, "acme/api", "v1.0.0")
		c := memClient([]*registrytest.Server{srv},
			registry.WithTransport(&hangFirst{next: registrytest.Transport(srv), seen: map[string]bool{}}),
			registry.WithRetry(1, 10*time.Millisecond))
		start := time.Now()
		tags, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"v1.0.0"}, tags); diff != "" {
			t.Errorf("tags (-want +got):\n%s", diff)
		}
		// The ping and the listing each waited out one 25s timeout.
		if took := time.Since(start); took < 50*time.Second || took > 51*time.Second {
			t.Errorf("took %s, want two timeouts of 25s", took)
		}
	})
}

// garbage answers tags/list requests for paths containing "broken" with a
// body go-containerregistry cannot decode: the decoder stops at the
// syntax error, far from EOF.
type garbage struct{ next http.RoundTripper }

func (g garbage) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.Contains(req.URL.Path, "broken/tags/list") {
		return &http.Response{
			StatusCode: http.StatusOK, Request: req, Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(`{"tags": ]` + strings.Repeat(" ", 1<<10))),
		}, nil
	}
	return g.next.RoundTrip(req)
}

func TestGarbledListFailsClearly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memServer(t)
		pushTags(t, srv, "acme/broken", "v1")
		pushTags(t, srv, "acme/api", "v1")
		c := memClient([]*registrytest.Server{srv}, registry.WithTransport(garbage{registrytest.Transport(srv)}),
			registry.WithConcurrency(1))
		_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/broken"))
		if err == nil || !strings.Contains(err.Error(), "tags page") {
			t.Fatalf("Tags of a garbled list: %v, want an error naming the page", err)
		}
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api")); err != nil {
			t.Fatalf("Tags after a garbled list: %v (the only slot was never freed)", err)
		}
	})
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// isStatus tells whether err wraps a transport.Error with status.
func isStatus(err error, status int) bool {
	var te *transport.Error
	return errors.As(err, &te) && te.StatusCode == status
}
