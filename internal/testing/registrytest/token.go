package registrytest

import (
	"encoding/base64"
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
	hidden map[string]bool // scopes left out of the tokens issued
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

// HideScope makes the token service leave repo out of the tokens it
// issues, as Docker Hub does for a repository that does not exist or that
// the client may not read: the token request succeeds, and the registry
// answers 401 with error="insufficient_scope" to every request for repo.
func (s *Server) HideScope(repo string) {
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	if s.tokens.hidden == nil {
		s.tokens.hidden = map[string]bool{}
	}
	s.tokens.hidden["repository:"+repo+":pull"] = true
}

// WithTokenURLLimit makes the token service answer 414 URI Too Long to a
// token request whose request line is over n bytes, as nginx does beyond
// its header buffer (8 KiB by default) and other fronts at their limits.
// It needs WithTokenAuth.
func WithTokenURLLimit(n int) Option { return func(s *Server) { s.tokenURLLimit = n } }

// WithScopedTokens makes the token service issue tokens that list an access
// entry per scope, as Docker Hub's, Quay's and Harbor's JWTs do, so that a
// token grows by about 150 bytes for each repository it names. It needs
// WithTokenAuth.
func WithScopedTokens() Option { return func(s *Server) { s.scopedTokens = true } }

// WithTokenRedirect makes the token service answer at URL()+"/token"
// with a 307 to URL()+"/oauth/token", where tokens are issued, as token
// services moved behind a new path do. It needs WithTokenAuth.
func WithTokenRedirect() Option { return func(s *Server) { s.tokenRedirect = true } }

// WithHeaderLimit makes the server answer 431 Request Header Fields Too
// Large to a request with a header line over n bytes, as the fronts of
// registries do (nginx: 8 KiB a line); an Authorization header carrying a
// token for too many repositories is the case that matters.
func WithHeaderLimit(n int) Option { return func(s *Server) { s.headerLimit = n } }

// WithSingleScopeTokens makes the token service grant only the first
// scope a token request names, as cesanta/docker_auth did before it
// learnt several: the token is issued, and the other repositories'
// requests are answered 401. It needs WithTokenAuth.
func WithSingleScopeTokens() Option { return func(s *Server) { s.singleScope = true } }

type grant struct {
	scopes  map[string]bool
	expires time.Time
}

// serve answers token requests and challenges requests without a valid
// token. It reports whether it answered.
func (ts *tokenService) serve(s *Server, w http.ResponseWriter, r *http.Request) bool {
	if s.tokenRedirect && r.URL.Path == "/token" {
		http.Redirect(w, r, "/oauth/token?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		return true
	}
	if r.URL.Path == "/token" || (s.tokenRedirect && r.URL.Path == "/oauth/token") {
		if s.tokenURLLimit > 0 && len(r.Method)+1+len(r.RequestURI) > s.tokenURLLimit {
			writeError(w, r, http.StatusRequestURITooLong, "URI_TOO_LONG", "request line too long")
			return true
		}
		ts.issue(s, w, r)
		return true
	}
	repo := repoOf(r.URL.Path)
	scope := ""
	if repo != "" {
		scope = "repository:" + repo + ":pull"
	}
	valid, granted := ts.allows(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), scope)
	if granted {
		return false
	}
	challenge := fmt.Sprintf(`Bearer realm=%q,service="registrytest"`, ts.realm)
	if scope != "" {
		challenge += fmt.Sprintf(`,scope=%q`, scope)
	}
	if valid {
		challenge += `,error="insufficient_scope"`
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
	for i, sc := range r.URL.Query()["scope"] {
		if s.singleScope && i > 0 {
			break
		}
		if ts.denied[sc] {
			ts.mu.Unlock()
			writeError(w, r, http.StatusForbidden, "DENIED", "requested access to the resource is denied")
			return
		}
		if !ts.hidden[sc] {
			g.scopes[sc] = true
		}
	}
	tok := fmt.Sprintf("token-%d", len(ts.issued)+1)
	if s.scopedTokens {
		tok += "." + accessClaim(r.URL.Query()["scope"])
	}
	ts.issued[tok] = g
	ts.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	answer := map[string]any{"token": tok, "expires_in": int(ts.ttl.Seconds())}
	if s.scopedTokens {
		answer["access_token"] = tok // Docker Hub sends both
	}
	json.NewEncoder(w).Encode(answer)
}

// accessClaim encodes an access entry per scope as Docker Hub's JWTs
// carry them.
func accessClaim(scopes []string) string {
	type entry struct {
		Type       string            `json:"type"`
		Name       string            `json:"name"`
		Actions    []string          `json:"actions"`
		Parameters map[string]string `json:"parameters"`
	}
	var access []entry
	for _, sc := range scopes {
		parts := strings.Split(sc, ":")
		if len(parts) != 3 {
			continue
		}
		access = append(access, entry{parts[0], parts[1], strings.Split(parts[2], ","),
			map[string]string{"pull_limit": "200", "pull_limit_interval": "21600"}})
	}
	b, _ := json.Marshal(map[string]any{"access": access})
	return base64.RawURLEncoding.EncodeToString(b)
}

// allows tells whether tok is valid now and whether it grants scope (""
// for the /v2/ ping, which any valid token may make).
func (ts *tokenService) allows(tok, scope string) (valid, granted bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	g, ok := ts.issued[tok]
	if !ok || !time.Now().Before(g.expires) {
		return false, false
	}
	return true, scope == "" || g.scopes[scope]
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
