package registrytest

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
// 401 Basic challenge. With WithTokenAuth, the credentials are asked for
// by the token service instead.
func WithBasicAuth(user, password string) Option {
	return func(s *Server) { s.user, s.password = user, password }
}

// WithLatency delays every answer by d, as a registry across a network
// does. Benchmarks use it to measure round trips; tests inside a synctest
// bubble get it for free.
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency.Store(int64(d)) } }

// SetLatency changes WithLatency's delay for the requests that follow.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// Server is a registry in an httptest server that records what it receives.
type Server struct {
	tb            testing.TB
	srv           *httptest.Server // TCP, unless InMemory
	mem           *pipeListener
	url           string
	reg           http.Handler
	pageSize      int
	user          string
	password      string
	latency       atomic.Int64 // time.Duration
	inMemory      bool
	tokens        *tokenService
	headerLimit   int
	tokenURLLimit int
	scopedTokens  bool
	singleScope   bool
	tokenRedirect bool
	pushRT        http.RoundTripper

	etags        bool
	lastModified bool

	mu       sync.Mutex
	reqs     []Request
	faults   []*fault
	modified map[string]time.Time // repository -> last manifest push
}

// pushHeader marks requests of Push, which are setup, not behaviour under
// test: they are neither logged nor failed nor challenged nor delayed.
const pushHeader = "X-Registrytest-Push"

// NewServer starts a registry that is closed when the test ends.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{tb: tb, reg: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	for _, opt := range opts {
		opt(s)
	}
	if !s.inMemory {
		s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
		s.url = s.srv.URL
		// A transport of its own: httptest.Server.Close closes the idle
		// connections of http.DefaultTransport, which breaks the push of a
		// test running in parallel ("CloseIdleConnections called").
		push := http.DefaultTransport.(*http.Transport).Clone()
		s.pushRT = push
		tb.Cleanup(func() {
			push.CloseIdleConnections()
			s.srv.Close()
		})
	} else {
		s.mem = newPipeListener()
		s.url = "http://" + s.mem.addr.String()
		hs := &http.Server{Handler: http.HandlerFunc(s.serve), ErrorLog: log.New(io.Discard, "", 0)}
		go hs.Serve(s.mem)
		push := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return s.mem.dial(ctx) }}
		s.pushRT = push
		tb.Cleanup(func() {
			push.CloseIdleConnections()
			hs.Close()
		})
	}
	if s.tokens != nil {
		s.tokens.realm = s.url + "/token"
	}
	return s
}

// URL is "http://127.0.0.1:PORT" ("http://regN.test:5000" in memory).
func (s *Server) URL() string { return s.url }

// Host is "127.0.0.1:PORT", the registry part of references to this server.
func (s *Server) Host() string { return strings.TrimPrefix(s.url, "http://") }

func (s *Server) addCleanup(f func()) { s.tb.Cleanup(f) }

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

// Reset forgets the requests received so far and the faults set by Fail
// and Break.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.faults = nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(pushHeader) != "" {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			s.touch(repoOf(r.URL.Path))
		}
		s.reg.ServeHTTP(w, r)
		return
	}
	f := s.record(r)
	if d := time.Duration(s.latency.Load()); d > 0 {
		time.Sleep(d)
	}
	switch {
	case f != nil && f.kind == failStatus:
		writeFault(w, r, f)
		return
	case f != nil && (f.kind == Hang || f.kind == Stall || f.kind == Reset):
		// Before authentication, as the faults' doc says: a token
		// request is answered by the token service, never reaching the
		// faults served after it.
		s.serveBroken(w, r, f)
		return
	}
	if s.headerLimit > 0 {
		for k, vs := range r.Header {
			for _, v := range vs {
				if len(k)+2+len(v) > s.headerLimit {
					writeError(w, r, http.StatusRequestHeaderFieldsTooLarge, "HEADER_TOO_LARGE", "request header field too large")
					return
				}
			}
		}
	}
	if s.tokens != nil {
		if s.tokens.serve(s, w, r) {
			return
		}
	} else if s.user != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
			w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
			writeError(w, r, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		}
	}
	if f != nil {
		s.serveBroken(w, r, f)
		return
	}
	if s.conditional(r) {
		s.serveConditional(w, r, s.serveRegistry)
		return
	}
	s.serveRegistry(w, r)
}

// serveRegistry answers r as the registry does, cut into pages of
// WithPageSize.
func (s *Server) serveRegistry(w http.ResponseWriter, r *http.Request) {
	if s.pageSize > 0 && isTagsList(r) {
		s.servePage(w, r, r.URL.Query().Get("last"), "")
		return
	}
	s.reg.ServeHTTP(w, r)
}

func isTagsList(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tags/list")
}

// record logs r and returns the fault it triggers, if any.
func (s *Server) record(r *http.Request) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()})
	line := r.Method + " " + r.URL.Path
	for _, f := range s.faults {
		if !strings.Contains(line, f.match) || (!f.forever && f.left == 0) || len(r.Method)+1+len(r.RequestURI) <= f.longer {
			continue
		}
		if !f.forever {
			f.left--
		}
		return f
	}
	return nil
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
