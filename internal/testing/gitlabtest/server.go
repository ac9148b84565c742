// Package gitlabtest is a stateful fake of the GitLab REST API (v4), for
// the subset imagebot's merge-request lifecycle uses, served over HTTP so
// that tests drive it with GitLab's real client-go.
//
// It answers as GitLab does: its JSON shapes; pagination by page and
// per_page (at most 100) with X-Total, X-Total-Pages, X-Page, X-Per-Page,
// X-Next-Page, X-Prev-Page and a Link header; projects named by numeric ID
// or URL-encoded full path; 401 for a missing, unknown or revoked token
// ({"message":"401 Unauthorized"}); 403 insufficient_scope for a write
// with a read_api token, and 403 Forbidden below the Developer role; 404
// "Project Not Found" for a project the token cannot see; 409 for a
// second open merge request from one source branch; 400 for a missing
// parameter or a source branch that does not exist, 422 for a merge
// request from a branch into itself; merged and closed as distinct
// states; a 405 to auto-merge while GitLab is still checking a new merge
// request's mergeability (WithMergeChecks); system notes on close and
// merge; and injected faults (FailNext), 429 rate limits with
// RateLimit-Reset and Retry-After among them.
//
// Branches and merges come from a forgetest.GitBackend (BareRepos over
// gittest's repositories), so the commits imagebot pushes over git are
// the commits the fake reasons about. Tests script people with CloseMR,
// MergeMR, OpenMR, OpenIssue, EditIssue and AddPipeline, and assert on
// MRs, Issues, Requests and Writes.
//
// Commit statuses list both what was posted (POST /statuses/:sha) and the
// jobs of the commit's pipelines, as GitLab's do. Auto-merge is recorded,
// never carried out: tests merge with MergeMR.
package gitlabtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// DefaultToken is the token New accepts unless WithToken says otherwise:
// a project access token with the api scope and the Maintainer role, whose
// user is DefaultBot.
const DefaultToken = "glpat-gitlabtest"

// DefaultBot is the user a project access token acts as.
const DefaultBot = "project_1_bot_imagebot"

// GitLab's access levels.
const (
	Guest      = 10
	Reporter   = 20
	Developer  = 30
	Maintainer = 40
)

// maxPerPage is GitLab's largest page.
const maxPerPage = 100

// user is a GitLab user and the token it acts with.
type user struct {
	id       int64
	username string
	scopes   []string // "api", "read_api"
	level    int      // access level on every project
	revoked  bool
}

// Server is a fake GitLab API on a local httptest server. All methods are
// safe for concurrent use.
type Server struct {
	perPage     int
	clock       func() time.Time
	mergeChecks int          // 405s to an auto-merge of a new merge request
	git         http.Handler // serves every path outside /api/; nil: 404
	basePath    string       // the instance's path on its host: "/gitlab"; "" at the root
	http        *httptest.Server
	mux         *http.ServeMux

	// Meter counts the API requests answered, refused ones included
	// (Requests), and those that changed something (Writes), and holds
	// the faults FailNext and RateLimitNext queue.
	forgetest.Meter

	mu       sync.Mutex
	users    map[string]*user // by token
	projects map[string]*project
	byID     map[int64]*project
	nextID   int64
}

// Option configures New.
type Option func(*Server)

// WithToken sets the token DefaultBot acts with, in place of DefaultToken.
func WithToken(token string) Option {
	return func(s *Server) {
		for t, u := range s.users {
			if u.username == DefaultBot {
				delete(s.users, t)
				s.users[token] = u
			}
		}
	}
}

// WithUser adds a person or bot acting with token: scopes as the token's
// ("api"; "read_api" cannot write), level as its role on every project
// (Developer, Reporter, ...).
func WithUser(login, token string, level int, scopes ...string) Option {
	return func(s *Server) {
		if len(scopes) == 0 {
			scopes = []string{"api"}
		}
		s.nextID++
		s.users[token] = &user{id: s.nextID, username: login, scopes: scopes, level: level}
	}
}

// WithClock sets the time the fake lives in (timestamps, RateLimit-Reset).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// WithPerPage caps page sizes at n, so that a few merge requests take
// several pages.
func WithPerPage(n int) Option { return func(s *Server) { s.perPage = n } }

// WithMergeChecks makes GitLab answer 405 to the first n merges (auto or
// not) of each new merge request, as it does while it still works out
// whether it can merge ("checking").
func WithMergeChecks(n int) Option { return func(s *Server) { s.mergeChecks = n } }

// WithBasePath installs the instance under path ("/gitlab"), as a
// self-managed GitLab with a relative URL root: the API is at
// URL()/api/v4, git at URL()/group/name.git, and nothing answers outside it.
func WithBasePath(path string) Option {
	return func(s *Server) { s.basePath = strings.TrimSuffix(path, "/") }
}

// WithGitRemote serves git over smart HTTP beside the API, as GitLab
// does, by passing every path outside /api/ to remote (a gittest server's
// URL): a clone's origin is then on the instance's own host, which
// CI_SERVER_URL names.
func WithGitRemote(remote string) Option {
	return func(s *Server) {
		u, err := url.Parse(remote)
		if err != nil {
			panic(err)
		}
		s.git = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	}
}

// New starts a fake GitLab. Close it when done.
func New(opts ...Option) *Server {
	s := &Server{clock: time.Now, projects: map[string]*project{}, byID: map[int64]*project{}, nextID: 100}
	s.users = map[string]*user{DefaultToken: {id: 1, username: DefaultBot, scopes: []string{"api"}, level: Maintainer}}
	for _, o := range opts {
		o(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.http = httptest.NewServer(forgetest.Mount(s.basePath, s))
	return s
}

// URL is the instance's URL, as CI_SERVER_URL: client-go adds /api/v4.
func (s *Server) URL() string { return s.http.URL + s.basePath }

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// Revoke makes token answer 401 from now on, as an expired or revoked
// token does.
func (s *Server) Revoke(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.users[token]; u != nil {
		u.revoked = true
	}
}

// ValidToken reports whether token is one the fake takes, for
// gittest.CheckTokens: git over https takes the same tokens.
func (s *Server) ValidToken(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[token]
	return u != nil && !u.revoked
}

// FailNext makes the next request whose method is method and whose path
// and query contain path answer status with header and GitLab's message
// body, once.
func (s *Server) FailNext(method, path string, status int, header http.Header) {
	s.QueueFault(forgetest.Fault{Method: method, Path: path, Status: status, Header: header,
		Body: fmt.Sprintf(`{"message":"%d %s"}`, status, http.StatusText(status))})
}

// RateLimitNext makes the next n requests answer GitLab's 429, saying
// the window turns after wait (RateLimit-Reset, Retry-After).
func (s *Server) RateLimitNext(n int, wait time.Duration) {
	s.mu.Lock()
	reset := s.clock().Add(wait)
	s.mu.Unlock()
	for range n {
		h := http.Header{}
		h.Set("RateLimit-Limit", "600")
		h.Set("RateLimit-Remaining", "0")
		h.Set("RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		h.Set("Retry-After", strconv.Itoa(int(wait.Seconds())))
		s.QueueFault(forgetest.Fault{Status: http.StatusTooManyRequests, Header: h, Body: "Retry later\n"})
	}
}

// ServeHTTP counts, authenticates and injects faults before routing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.git != nil && !strings.HasPrefix(r.URL.Path, "/api/") {
		s.git.ServeHTTP(w, r)
		return
	}
	s.CountRequest(false) // a write is counted where it is made
	if f, ok := s.TakeFault(r.Method, r.URL.RequestURI()); ok {
		f.AddHeader(w)
		if strings.HasPrefix(f.Body, "{") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(f.Status)
		fmt.Fprint(w, f.Body)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// ctx is one request as a handler sees it: its user, and the project
// when the route names one, under the server's lock.
type ctx struct {
	s *Server
	w http.ResponseWriter
	r *http.Request
	u *user
	p *project
}

// handle registers a route: every handler runs authenticated and under
// the lock; a route with {id} finds the project the user can see.
func (s *Server) handle(pattern string, h func(c *ctx)) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := &ctx{s: s, w: w, r: r}
		tok := r.Header.Get("PRIVATE-TOKEN")
		if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			tok = b
		}
		c.u = s.users[tok]
		switch {
		case c.u == nil:
			c.message(http.StatusUnauthorized, "401 Unauthorized")
			return
		case c.u.revoked:
			c.json(http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "Token was revoked. You have to re-authorize from the user."})
			return
		}
		if r.Method != http.MethodGet && !c.has("api") {
			c.json(http.StatusForbidden, map[string]string{"error": "insufficient_scope",
				"error_description": "The request requires higher privileges than provided by the access token.", "scope": "api"})
			return
		}
		if id := r.PathValue("id"); id != "" {
			c.p = s.project(id)
			if c.p == nil || c.u.level < Guest {
				c.message(http.StatusNotFound, "404 Project Not Found")
				return
			}
		}
		h(c)
	})
}

func (c *ctx) has(scope string) bool {
	for _, s := range c.u.scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// project is a project by numeric ID or full path (any case).
func (s *Server) project(id string) *project {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return s.byID[n]
	}
	return s.projects[strings.ToLower(id)]
}

// write counts a write and checks the role: below Developer, GitLab
// answers 403 Forbidden.
func (c *ctx) write(level int) bool {
	if c.u.level < level {
		c.message(http.StatusForbidden, "403 Forbidden")
		return false
	}
	c.s.CountWrites(1)
	return true
}

func (c *ctx) json(status int, v any) {
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(status)
	json.NewEncoder(c.w).Encode(v)
}

// message answers GitLab's error body: {"message": m}, where m is a
// string, a list of strings, or a map of field to strings.
func (c *ctx) message(status int, m any) { c.json(status, map[string]any{"message": m}) }

// decode reads a JSON body, as client-go sends for POST and PUT.
func (c *ctx) decode(v any) bool {
	if err := json.NewDecoder(c.r.Body).Decode(v); err != nil {
		c.json(http.StatusBadRequest, map[string]string{"error": "400 Bad request - " + err.Error()})
		return false
	}
	return true
}

// page answers one page of items with GitLab's pagination headers.
func page[T any](c *ctx, items []T) {
	lo, hi := pageBounds(c, len(items))
	c.json(http.StatusOK, items[lo:hi])
}

// pageBounds sets the paging headers of the page asked for of total
// items, and returns its bounds.
func pageBounds(c *ctx, total int) (lo, hi int) {
	q := c.r.URL.Query()
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 20
	}
	per = min(per, maxPerPage)
	if c.s.perPage > 0 {
		per = min(per, c.s.perPage)
	}
	n, _ := strconv.Atoi(q.Get("page"))
	n = max(n, 1)
	pages := max((total+per-1)/per, 1)
	lo, hi = min((n-1)*per, total), min(n*per, total)
	h := c.w.Header()
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Page", strconv.Itoa(n))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: c.r.URL.Path}
		qq := c.r.URL.Query()
		qq.Set("page", strconv.Itoa(p))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf(`<%s>; rel="%s"`, u.String(), rel)
	}
	links := []string{}
	if n < pages {
		h.Set("X-Next-Page", strconv.Itoa(n+1))
		links = append(links, link(n+1, "next"))
	}
	if n > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(n-1))
		links = append(links, link(n-1, "prev"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
	return lo, hi
}

// splitPath is a project path as BareRepos names it: the namespace, and
// the project's name.
func splitPath(path string) (ns, name string) {
	i := strings.LastIndex(path, "/")
	return path[:i], path[i+1:]
}

// userJSON is a user as GitLab shows it in an MR, note or issue.
type userJSON struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	State    string `json:"state"`
}

func (s *Server) userByName(login string) *user {
	for _, u := range s.users {
		if strings.EqualFold(u.username, login) {
			return u
		}
	}
	return nil
}

func (s *Server) userByID(id int64) *user {
	for _, u := range s.users {
		if u.id == id {
			return u
		}
	}
	return nil
}

func toUser(u *user) userJSON {
	return userJSON{ID: u.id, Username: u.username, Name: u.username, State: "active"}
}

// labelList reads labels as client-go sends them: "a,b", or a list.
type labelList []string

func (l *labelList) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = nil
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				*l = append(*l, x)
			}
		}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(l))
}

// SetMergeChecks is WithMergeChecks for the merge requests opened from
// now on.
func (s *Server) SetMergeChecks(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mergeChecks = n
}
