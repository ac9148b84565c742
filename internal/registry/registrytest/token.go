package registrytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// WithTokenAuth puts the registry behind a token service as Docker Hub,
// GHCR and Quay are: every /v2/ request needs a bearer token from
// URL()+"/token" that names the repository among its scopes
// ("repository:acme/api:pull"); without one the answer is a 401 Bearer
// challenge naming the scope. A token may carry several scopes (one scope
// parameter each) and expires after ttl. The token requests are recorded
// like the others, with the path "/token".
func WithTokenAuth(ttl time.Duration) Option {
	return func(s *Server) { s.tokens = &tokenService{ttl: ttl, issued: map[string]grant{}} }
}

type tokenService struct {
	ttl   time.Duration
	realm string

	mu     sync.Mutex
	issued map[string]grant
	denied map[string]bool // scopes whose token requests are refused
}

// DenyScope makes the token service refuse (403) every token request that
// asks for repo, as a registry does for a private repository the client
// may not read; the request's other scopes are refused with it.
func (s *Server) DenyScope(repo string) {
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	if s.tokens.denied == nil {
		s.tokens.denied = map[string]bool{}
	}
	s.tokens.denied["repository:"+repo+":pull"] = true
}

type grant struct {
	scopes  map[string]bool
	expires time.Time
}

// serve answers token requests and challenges requests without a valid
// token. It reports whether it answered.
func (ts *tokenService) serve(s *Server, w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path == "/token" {
		ts.issue(s, w, r)
		return true
	}
	repo := repoOf(r.URL.Path)
	scope := ""
	if repo != "" {
		scope = "repository:" + repo + ":pull"
	}
	if ts.allows(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), scope) {
		return false
	}
	challenge := fmt.Sprintf(`Bearer realm=%q,service="registrytest"`, ts.realm)
	if scope != "" {
		challenge += fmt.Sprintf(`,scope=%q`, scope)
	}
	w.Header().Set("WWW-Authenticate", challenge)
	writeError(w, r, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
	return true
}

func (ts *tokenService) issue(s *Server, w http.ResponseWriter, r *http.Request) {
	if s.user != "" {
		if u, p, ok := r.BasicAuth(); !ok || u != s.user || p != s.password {
			writeError(w, r, http.StatusUnauthorized, "UNAUTHORIZED", "bad credentials")
			return
		}
	}
	g := grant{scopes: map[string]bool{}, expires: time.Now().Add(ts.ttl)}
	ts.mu.Lock()
	for _, sc := range r.URL.Query()["scope"] {
		if ts.denied[sc] {
			ts.mu.Unlock()
			writeError(w, r, http.StatusForbidden, "DENIED", "requested access to the resource is denied")
			return
		}
		g.scopes[sc] = true
	}
	tok := fmt.Sprintf("token-%d", len(ts.issued)+1)
	ts.issued[tok] = g
	ts.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"token": tok, "expires_in": int(ts.ttl.Seconds())})
}

// allows tells whether tok is valid now and grants scope ("" for the
// /v2/ ping, which any valid token may make).
func (ts *tokenService) allows(tok, scope string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	g, ok := ts.issued[tok]
	if !ok || !time.Now().Before(g.expires) {
		return false
	}
	return scope == "" || g.scopes[scope]
}

// repoOf is the repository a /v2/ path names, "" for the ping and for
// paths that name none.
func repoOf(path string) string {
	rest, ok := strings.CutPrefix(path, "/v2/")
	if !ok {
		return ""
	}
	for _, sep := range []string{"/tags/list", "/manifests/", "/blobs/", "/referrers/"} {
		if i := strings.LastIndex(rest, sep); i > 0 {
			return rest[:i]
		}
	}
	return ""
}

// Scopes returns the scope parameters of every token request received, one
// slice per request, oldest first.
func (s *Server) Scopes() [][]string {
	var out [][]string
	for _, r := range s.Requests() {
		if r.Path != "/token" {
			continue
		}
		out = append(out, queryValues(r.Query, "scope"))
	}
	return out
}

func queryValues(rawQuery, key string) []string {
	q, _ := url.ParseQuery(rawQuery)
	return q[key]
}
