package registrytest

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
}

// Option configures a Server.
type Option func(*Server)

// WithPageSize makes tag lists come in pages of at most n tags, linked by
// Link headers as Docker Hub and the distribution spec do. pkg/registry
// honours ?n= and ?last= but never sends a Link header by itself.
func WithPageSize(n int) Option { return func(s *Server) { s.pageSize = n } }

// WithBasicAuth makes every request without these credentials fail with a
// 401 Basic challenge.
func WithBasicAuth(user, password string) Option {
	return func(s *Server) { s.user, s.password = user, password }
}

// Server is a registry in an httptest server that records what it receives.
type Server struct {
	srv      *httptest.Server
	reg      http.Handler
	pageSize int
	user     string
	password string

	mu     sync.Mutex
	reqs   []Request
	faults []*fault
}

type fault struct {
	match   string
	status  int
	left    int // requests still to fail, unless forever
	forever bool
	header  http.Header
}

// pushHeader marks requests of Push, which are setup, not behaviour under
// test: they are neither logged nor failed nor challenged.
const pushHeader = "X-Registrytest-Push"

// NewServer starts a registry that is closed when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{reg: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.srv.URL }

// Host is "127.0.0.1:PORT", the registry part of references to this server.
func (s *Server) Host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Count counts the requests whose method is method ("" for any) and whose
// path contains pathSubstring.
func (s *Server) Count(method, pathSubstring string) int {
	n := 0
	for _, r := range s.Requests() {
		if (method == "" || r.Method == method) && strings.Contains(r.Path, pathSubstring) {
			n++
		}
	}
	return n
}

// Reset forgets the requests received so far and the faults set by Fail.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.faults = nil
}

// Fail answers the next times requests matching pathSubstring with status
// and header instead of serving them (times <= 0: all of them). The
// substring is matched against the path and against "METHOD path", so
// Fail("HEAD /v2/", 405, 0, nil) refuses HEAD only.
func (s *Server) Fail(pathSubstring string, status int, times int, header http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{match: pathSubstring, status: status, left: times, forever: times <= 0, header: header.Clone()})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(pushHeader) == "" {
		if f := s.record(r); f != nil {
			writeFault(w, r, f)
			return
		}
		if s.user != "" {
			if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
				w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
				writeError(w, r, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
				return
			}
		}
	}
	if s.pageSize > 0 && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tags/list") {
		s.servePage(w, r)
		return
	}
	s.reg.ServeHTTP(w, r)
}

// record logs r and returns the fault it triggers, if any.
func (s *Server) record(r *http.Request) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()})
	line := r.Method + " " + r.URL.Path
	for _, f := range s.faults {
		if !strings.Contains(line, f.match) || (!f.forever && f.left == 0) {
			continue
		}
		if !f.forever {
			f.left--
		}
		return f
	}
	return nil
}

func writeFault(w http.ResponseWriter, r *http.Request, f *fault) {
	for k, vs := range f.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	writeError(w, r, f.status, "UNAVAILABLE", "injected by registrytest")
}

// writeError answers with an OCI error body, as a registry does.
func writeError(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		io.WriteString(w, `{"errors":[{"code":"`+code+`","message":"`+msg+`"}]}`)
	}
}

// urlPath is the path part of a tags/list URL for repo.
func urlPath(repo string) string {
	return (&url.URL{Path: "/v2/" + repo + "/tags/list"}).EscapedPath()
}
