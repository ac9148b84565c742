package helmrepotest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is an HTTP Helm repository at URL: GET URL/index.yaml and
// URL/NAME-VERSION.tgz. It answers conditional requests for the index with
// 304 while the index is unchanged.
type Server struct {
	URL string

	srv       *httptest.Server
	user      string
	password  string
	latency   atomic.Int64 // a time.Duration
	requests  atomic.Int64
	mu        sync.Mutex
	index     []byte
	etag      string
	modified  time.Time
	archives  map[string]Chart // by file name; built when asked for
	generated time.Time
	charts    []Chart
}

// Option configures a Server.
type Option func(*Server)

// WithBasicAuth makes the repository want these credentials.
func WithBasicAuth(user, password string) Option {
	return func(s *Server) { s.user, s.password = user, password }
}

// WithLatency answers every request after d (for benchmarks).
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency.Store(int64(d)) } }

// SetLatency changes WithLatency's delay for the requests that follow.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// New starts a repository holding charts, stopped when t ends.
func New(t testing.TB, charts []Chart, opts ...Option) *Server {
	s := Start(charts, opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a repository holding charts outside a test (a testscript
// setup); Close stops it.
func Start(charts []Chart, opts ...Option) *Server {
	s := &Server{generated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	s.Set(charts)
	return s
}

// Close stops the repository.
func (s *Server) Close() { s.srv.Close() }

// Charts returns the charts the repository holds.
func (s *Server) Charts() []Chart {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.charts)
}

// Set replaces the repository's charts, and so its index and validators.
func (s *Server) Set(charts []Chart) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.charts = charts
	s.archives = map[string]Chart{}
	for i, c := range charts {
		if c.Created.IsZero() {
			charts[i].Created = s.generated
		}
		s.archives[c.Name+"-"+c.Version+".tgz"] = charts[i]
	}
	s.index = Index(s.URL, charts, s.generated)
	s.etag = fmt.Sprintf(`"%s"`, Digest(s.index)[:16])
	s.modified = s.modified.Add(time.Second)
	if s.modified.Before(s.generated) {
		s.modified = s.generated
	}
}

// Requests returns how many requests the server answered.
func (s *Server) Requests() int { return int(s.requests.Load()) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if d := time.Duration(s.latency.Load()); d > 0 {
		time.Sleep(d)
	}
	if s.user != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	s.mu.Lock()
	index, etag, modified := s.index, s.etag, s.modified
	chart, ok := s.archives[strings.TrimPrefix(r.URL.Path, "/")]
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/index.yaml":
		w.Header().Set("Content-Type", "application/x-yaml")
		w.Header().Set("ETag", etag)
		// ServeContent answers If-None-Match and If-Modified-Since.
		http.ServeContent(w, r, "index.yaml", modified, bytes.NewReader(index))
	case ok:
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(Archive(chart)) // the same bytes as indexed: Archive is deterministic
	default:
		http.NotFound(w, r)
	}
}
