package registry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/registrytest"
)

func TestRetries(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "v1.0.0")
	mirror := viaMirror(srv)

	tests := []struct {
		name    string
		status  int
		times   int
		header  http.Header
		wantErr int           // status of the final error, 0 for success
		want    int           // tags/list requests
		maxWait time.Duration // WithRetry's; 20ms unless set
		minTook time.Duration
		maxTook time.Duration
	}{
		{name: "429 honours Retry-After", status: http.StatusTooManyRequests, times: 1,
			header: http.Header{"Retry-After": {"1"}}, maxWait: 5 * time.Second, want: 2,
			minTook: 900 * time.Millisecond},
		{name: "Retry-After capped at maxWait", status: http.StatusTooManyRequests, times: 1,
			header: http.Header{"Retry-After": {"3600"}}, maxWait: 50 * time.Millisecond, want: 2,
			maxTook: 5 * time.Second},
		{name: "Retry-After as HTTP date", status: http.StatusTooManyRequests, times: 1,
			header:  http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}},
			maxWait: 50 * time.Millisecond, want: 2, maxTook: 5 * time.Second},
		{name: "503 retried then succeeds", status: http.StatusServiceUnavailable, times: 2, want: 3},
		{name: "503 retried a bounded number of times", status: http.StatusServiceUnavailable,
			wantErr: http.StatusServiceUnavailable, want: 3},
		{name: "404 not retried", status: http.StatusNotFound, wantErr: http.StatusNotFound, want: 1},
		{name: "401 not retried", status: http.StatusUnauthorized, wantErr: http.StatusUnauthorized, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			srv.Fail("/tags/list", tc.status, tc.times, tc.header)
			c := newClient(mirror, registry.WithRetry(2, cmpOr(tc.maxWait, 20*time.Millisecond)))
			start := time.Now()
			_, err := c.Tags(t.Context(), "ghcr.io/acme/api")
			if took := time.Since(start); took < tc.minTook || (tc.maxTook > 0 && took > tc.maxTook) {
				t.Errorf("took %s, want between %s and %s", took, tc.minTook, tc.maxTook)
			}
			var te *transport.Error
			switch {
			case tc.wantErr == 0 && err != nil:
				t.Errorf("Tags: %v", err)
			case tc.wantErr != 0 && (!errors.As(err, &te) || te.StatusCode != tc.wantErr):
				t.Errorf("Tags error = %v, want a transport.Error with status %d", err, tc.wantErr)
			}
			if n := srv.Count(http.MethodGet, "/tags/list"); n != tc.want {
				t.Errorf("tags/list requests = %d, want %d", n, tc.want)
			}
			wantStats := []registry.HostStats{{Host: srv.Host(), Requests: len(srv.Requests()), Errors: min(tc.want, tc.times)}}
			if tc.times == 0 {
				wantStats[0].Errors = tc.want
				if tc.status == http.StatusUnauthorized {
					wantStats[0].Errors = 0 // a challenge, not a failure
				}
			}
			if diff := cmp.Diff(wantStats, c.Stats()); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
		})
	}
}

// hangFirst holds the first request of every path until it is cancelled,
// as a registry that stopped answering would.
type hangFirst struct {
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
	return http.DefaultTransport.RoundTrip(req)
}

func TestTimeoutsAreRetried(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "v1.0.0")
	c := newClient(viaMirror(srv),
		registry.WithTransport(&hangFirst{seen: map[string]bool{}}),
		registry.WithTimeout(100*time.Millisecond),
		registry.WithRetry(1, 10*time.Millisecond),
	)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tags, err := c.Tags(ctx, "ghcr.io/acme/api")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"v1.0.0"}, tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

// inflight records the most requests it ever saw at once.
type inflight struct {
	mu       sync.Mutex
	now, max int
}

func (f *inflight) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.now++
	f.max = max(f.max, f.now)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.now--; f.mu.Unlock() }()
	time.Sleep(5 * time.Millisecond)
	return http.DefaultTransport.RoundTrip(req)
}

func TestConcurrencyIsBounded(t *testing.T) {
	srv := registrytest.NewServer(t)
	img := registrytest.Image(t, "x", created, nil)
	var repos []string
	for _, r := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		srv.Push(t, "acme/"+r, "v1", img)
		repos = append(repos, "ghcr.io/acme/"+r)
	}
	f := &inflight{}
	c := newClient(viaMirror(srv), registry.WithTransport(f), registry.WithConcurrency(2))
	var wg sync.WaitGroup
	for _, r := range repos {
		wg.Go(func() {
			if _, err := c.Tags(t.Context(), r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if f.max > 2 || f.max == 0 {
		t.Errorf("at most %d requests in flight, want 1 or 2", f.max)
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// garbage answers tags/list requests for paths containing "broken" with a
// body go-containerregistry cannot decode: the decoder stops at the
// syntax error, far from EOF, and the body is never closed.
type garbage struct{}

func (garbage) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.Contains(req.URL.Path, "broken/tags/list") {
		return &http.Response{
			StatusCode: http.StatusOK, Request: req, Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(`{"tags": ]` + strings.Repeat(" ", 1<<20))),
		}, nil
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestUnclosedBodyFreesItsSlot(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/broken", "v1")
	pushTags(t, srv, "acme/api", "v1")
	c := newClient(viaMirror(srv), registry.WithTransport(garbage{}),
		registry.WithConcurrency(1), registry.WithTimeout(200*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := c.Tags(ctx, "ghcr.io/acme/broken"); err == nil {
		t.Fatal("Tags of a garbled list succeeded")
	}
	if _, err := c.Tags(ctx, "ghcr.io/acme/api"); err != nil {
		t.Fatalf("Tags after an unclosed body: %v (the only slot was never freed)", err)
	}
}
