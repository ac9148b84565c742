// Package giteatest is a stateful fake of the Gitea (and Forgejo) REST
// API, /api/v1, for the subset imagebot's pull-request lifecycle uses,
// served over HTTP so that tests drive it with the real Gitea SDK
// (code.gitea.io/sdk/gitea).
//
// It answers as Gitea does: pages of `page` and `limit` (at most 50, the
// default MAX_RESPONSE_ITEMS; 30 when unasked) with Link and X-Total-Count
// headers; a second open pull request for a branch is a 409 ("pull request
// already exists for these targets"); unknown things a 404 "The target
// couldn't be found."; a token without write scope a 403; a bad token a
// 401. Issues and pull requests share one numbering, pull requests are
// listed as issues unless type=issues, labels are set by ID, a closed pull
// request is "closed" with merged false and a merged one "closed" with
// merged true, a title starting "WIP:" or "[WIP]" is a draft, and
// merge_when_checks_succeed schedules a merge that the commit statuses
// trigger. GET /api/v1/version, which the SDK asks unless told a version,
// answers without a token. Branches and merges come from a
// forgetest.GitBackend (forgetest.BareRepos over gittest's
// repositories), so the commits pushed over git are the ones the fake
// reasons about.
//
// Tests script people with ClosePR, MergePR, OpenPR and OpenIssue, inject
// faults with FailNext (a 429 with Retry-After, 5xx), and assert on PRs,
// Issues, Requests and Writes. It never models forks, organisations,
// teams or webhooks.
package giteatest

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

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// DefaultToken acts as BotLogin unless WithToken says otherwise.
const DefaultToken = "gitea_fake_token"

// BotLogin is the user the token acts as; HumanLogin the person that
// ClosePR and MergePR stand for.
const (
	BotLogin   = "imagebot-bot"
	HumanLogin = "jane"
)

// swaggerURL is the "url" of Gitea's error bodies.
const swaggerURL = "https://gitea.example/api/swagger"

// Server is a fake Gitea API on a local httptest server. Its methods are
// safe for concurrent use.
type Server struct {
	token    string
	readOnly map[string]string // token -> login: read scope only
	users    map[string]string // token -> login
	perPage  int               // MAX_RESPONSE_ITEMS
	version  string
	clock    func() time.Time
	http     *httptest.Server
	git      http.Handler // nil: no git at the API's host
	basePath string       // the server's path on its host (ROOT_URL's): "/gitea"; "" at the root

	// Meter counts authenticated API requests (Requests) and those of
	// them that ask to change something (Writes: every method but GET and
	// HEAD), refused or not, and holds FailNext's faults.
	forgetest.Meter

	mu     sync.Mutex
	repos  map[string]*repo
	nextID int64
}

// Option configures New.
type Option func(*Server)

// WithToken sets the token that acts as BotLogin.
func WithToken(t string) Option { return func(s *Server) { s.token = t } }

// WithUser adds a person acting with token.
func WithUser(login, token string) Option { return func(s *Server) { s.users[token] = login } }

// WithReadOnlyToken adds a token of login's without the write:repository
// scope: its writes are refused with 403, as Gitea's scoped tokens are.
func WithReadOnlyToken(login, token string) Option {
	return func(s *Server) { s.readOnly[token] = login }
}

// WithPerPage sets MAX_RESPONSE_ITEMS, the largest page, so that a few
// PRs take several pages.
func WithPerPage(n int) Option { return func(s *Server) { s.perPage = n } }

// WithVersion sets what GET /api/v1/version answers: "1.24.0" unless set;
// Forgejo says "11.0.1+gitea-1.22.0".
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithGit serves git at the API's host, as Gitea does: every request
// outside /api/ is passed to the git server at target (gittest's), so
// that one server URL is both the API's and the remote's.
func WithGit(target string) Option {
	return func(s *Server) {
		u, err := url.Parse(target)
		if err != nil {
			panic(err)
		}
		s.git = httputil.NewSingleHostReverseProxy(u)
	}
}

// WithBasePath installs the server under path ("/gitea"), as Gitea with a
// ROOT_URL path behind a reverse proxy: the API is at URL()/api/v1, git
// at URL()/owner/name.git, and nothing answers outside it.
func WithBasePath(path string) Option {
	return func(s *Server) { s.basePath = strings.TrimSuffix(path, "/") }
}

// WithClock sets the time the fake lives in.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// New starts a fake Gitea. Close it when done.
func New(opts ...Option) *Server {
	s := &Server{token: DefaultToken, readOnly: map[string]string{}, users: map[string]string{},
		perPage: 50, version: "1.24.0", clock: time.Now, repos: map[string]*repo{}, nextID: 1}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /api/v1/user":                                                    s.getUser,
		"GET /api/v1/repos/{owner}/{repo}":                                    s.getRepo,
		"GET /api/v1/repos/{owner}/{repo}/pulls":                              s.listPulls,
		"POST /api/v1/repos/{owner}/{repo}/pulls":                             s.createPull,
		"GET /api/v1/repos/{owner}/{repo}/pulls/{index}":                      s.getPull,
		"PATCH /api/v1/repos/{owner}/{repo}/pulls/{index}":                    s.editPull,
		"POST /api/v1/repos/{owner}/{repo}/pulls/{index}/merge":               s.mergePull,
		"POST /api/v1/repos/{owner}/{repo}/pulls/{index}/requested_reviewers": s.requestReviewers,
		"GET /api/v1/repos/{owner}/{repo}/issues":                             s.listIssues,
		"POST /api/v1/repos/{owner}/{repo}/issues":                            s.createIssue,
		"PATCH /api/v1/repos/{owner}/{repo}/issues/{index}":                   s.editIssue,
		"GET /api/v1/repos/{owner}/{repo}/issues/{index}/comments":            s.listComments,
		"POST /api/v1/repos/{owner}/{repo}/issues/{index}/comments":           s.createComment,
		"POST /api/v1/repos/{owner}/{repo}/issues/{index}/labels":             s.addLabels,
		"GET /api/v1/repos/{owner}/{repo}/labels":                             s.listLabels,
		"POST /api/v1/repos/{owner}/{repo}/labels":                            s.createLabel,
		"POST /api/v1/repos/{owner}/{repo}/statuses/{sha}":                    s.createStatus,
		"GET /api/v1/repos/{owner}/{repo}/commits/{ref}/status":               s.combinedStatus,
		"GET /api/v1/repos/{owner}/{repo}/commits/{ref}/statuses":             s.listStatuses,
		"DELETE /api/v1/repos/{owner}/{repo}/branches/{branch...}":            s.deleteBranch,
		"/": func(w http.ResponseWriter, _ *http.Request) { notFound(w) },
	} {
		mux.HandleFunc(pattern, h)
	}
	s.http = httptest.NewServer(forgetest.Mount(s.basePath, s.front(mux)))
	return s
}

// URL is the server's root: the SDK's URL, and gitops.Options.APIURL.
func (s *Server) URL() string { return s.http.URL + s.basePath }

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// FailNext makes the next authenticated request with method (any when
// empty) whose path and query contain pathSubstring answer status with
// header: a 429 with Retry-After is a reverse proxy's or Forgejo's rate
// limit. Faults fire once each, in order.
func (s *Server) FailNext(method, pathSubstring string, status int, header http.Header) {
	s.QueueFault(forgetest.Fault{Method: method, Path: pathSubstring, Status: status, Header: header})
}

// front does what Gitea does before routing: the version endpoint for
// anyone, then the token (Authorization: token, Bearer, or basic with the
// token as password), accounting, scopes and faults.
func (s *Server) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.git != nil && !strings.HasPrefix(r.URL.Path, "/api/") {
			s.git.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json;charset=utf-8")
		if r.Method == http.MethodGet && r.URL.Path == "/api/v1/version" {
			writeJSON(w, http.StatusOK, map[string]string{"version": s.version})
			return
		}
		login, write, ok := s.authenticate(r)
		if !ok {
			writeError(w, http.StatusUnauthorized, "invalid username, password or token")
			return
		}
		isWrite := r.Method != http.MethodGet && r.Method != http.MethodHead
		s.CountRequest(isWrite)
		if f, ok := s.TakeFault(r.Method, r.URL.Path+"?"+r.URL.RawQuery); ok {
			f.AddHeader(w)
			writeError(w, f.Status, http.StatusText(f.Status))
			return
		}
		if isWrite && !write {
			writeError(w, http.StatusForbidden, "token does not have at least one of required scope(s), required=[write:repository], token scope=read:repository")
			return
		}
		next.ServeHTTP(w, r.WithContext(contextWith(r, login)))
	})
}

func (s *Server) authenticate(r *http.Request) (login string, write, ok bool) {
	tok := ""
	h := r.Header.Get("Authorization")
	switch {
	case strings.HasPrefix(h, "token "):
		tok = strings.TrimPrefix(h, "token ")
	case strings.HasPrefix(h, "Bearer "):
		tok = strings.TrimPrefix(h, "Bearer ")
	default:
		if _, p, basic := r.BasicAuth(); basic {
			tok = p
		}
	}
	switch {
	case tok == "":
		return "", false, false
	case tok == s.token:
		return BotLogin, true, true
	}
	if l, found := s.users[tok]; found {
		return l, true, true
	}
	if l, found := s.readOnly[tok]; found {
		return l, false, true
	}
	return "", false, false
}

// ValidToken reports whether token is one the API accepts: hand it to
// gittest's CheckTokens so that git takes the same tokens.
func (s *Server) ValidToken(token string) bool {
	_, _, ok := s.authenticate(&http.Request{Header: http.Header{"Authorization": {"token " + token}}})
	return ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError is Gitea's APIError body.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "url": swaggerURL})
}

// notFound is Gitea's APIErrorNotFound body.
func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"errors": []string{}, "message": "The target couldn't be found.", "url": swaggerURL})
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusUnprocessableEntity, "invalid JSON: "+err.Error())
		return false
	}
	return true
}

// paging is Gitea's page and limit: page 1 and 30 (DEFAULT_PAGING_NUM)
// unless asked, limit at most MAX_RESPONSE_ITEMS.
func (s *Server) paging(r *http.Request) (page, limit int) {
	page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	limit, _ = strconv.Atoi(r.URL.Query().Get("limit"))
	page = max(page, 1)
	if limit <= 0 {
		limit = min(30, s.perPage)
	}
	return page, min(limit, s.perPage)
}

// writePage writes one page of items with Gitea's Link and X-Total-Count.
func writePage[T any](s *Server, w http.ResponseWriter, r *http.Request, items []T) {
	lo, hi := pageBounds(s, w, r, len(items))
	out := items[lo:hi]
	if out == nil {
		out = []T{}
	}
	writeJSON(w, http.StatusOK, out)
}

// pageBounds writes the Link and X-Total-Count of the page asked for of
// total items, and returns its bounds.
func pageBounds(s *Server, w http.ResponseWriter, r *http.Request, total int) (lo, hi int) {
	page, limit := s.paging(r)
	last := max((total+limit-1)/limit, 1)
	link := func(p int, rel string) string {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("limit", strconv.Itoa(limit))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s%s>; rel=%q", s.URL(), u.RequestURI(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ","))
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	w.Header().Set("Access-Control-Expose-Headers", "X-Total-Count, Link")
	return min((page-1)*limit, total), min(page*limit, total)
}

// versionBefore reports whether the server's version is before v
// ("1.23"), compared by its numbers.
func (s *Server) versionBefore(v string) bool {
	have, want := strings.Split(s.version, "."), strings.Split(v, ".")
	for i := range want {
		var h, w int
		if i < len(have) {
			h, _ = strconv.Atoi(have[i])
		}
		w, _ = strconv.Atoi(want[i])
		if h != w {
			return h < w
		}
	}
	return false
}

func (s *Server) user(login string) *gitea.User {
	return &gitea.User{ID: int64(len(login)), UserName: login, FullName: login, Email: login + "@noreply.gitea.example"}
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.user(actor(r)))
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

func (s *Server) htmlURL(r *repo, kind string, n int64) string {
	u, _ := url.JoinPath(s.URL(), r.owner, r.name, kind, strconv.FormatInt(n, 10))
	return u
}

var _ forgetest.GitBackend = forgetest.BareRepos(nil)
