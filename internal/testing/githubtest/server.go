package githubtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// DefaultToken is the token New accepts unless WithToken says otherwise.
const DefaultToken = "ghs_githubfake"

// defaultRateLimit is GitHub's hourly budget for an installation token.
const defaultRateLimit = 5000

// Server is a fake GitHub API on a local httptest server. All methods are
// safe for concurrent use.
type Server struct {
	token     string
	perPage   int // 0: honour the client's per_page
	rateLimit int // requests an hour per resource
	clock     func() time.Time
	secondary *SecondaryLimit
	http      *httptest.Server
	mux       *http.ServeMux

	// Meter counts authenticated requests of every kind (Requests: what
	// a run costs against GitHub's hourly budget) and those that ask to
	// change state (Writes: every method but GET and HEAD, and GraphQL
	// mutations; not an App's token exchange), whether or not they
	// succeeded, and holds FailNext's faults.
	forgetest.Meter

	mu       sync.Mutex
	repos    map[string]*repo // by lower-case "owner/name": GitHub ignores case
	nextID   int64
	used     map[string]int // rate-limit resource -> requests this window
	resetAt  time.Time
	written  []time.Time // times of recent writes, for the secondary limit
	writeLog []Write

	users         map[string]string // a person's token -> login; see WithUser
	tokenLifetime time.Duration
	apps          map[int64]*app
	installations map[int64]*installation
	tokens        map[string]*issued // installation tokens, expired ones too
	webFlow       *openpgp.Entity    // signs API commits; see signer
}

// Option configures New.
type Option func(*Server)

// WithToken sets the token that acts as github-actions[bot], GITHUB_TOKEN's
// user; installation tokens of an App work besides it.
func WithToken(t string) Option { return func(s *Server) { s.token = t } }

// WithUser adds a person who acts with token: someone who opens pull
// requests (from the repository's branches, or from a fork added with
// ForkOf) and comments, as a writer or a stranger would.
func WithUser(login, token string) Option {
	return func(s *Server) {
		if s.users == nil {
			s.users = map[string]string{}
		}
		s.users[token] = login
	}
}

// WithClock sets the time the fake lives in: rate-limit windows, Retry-After
// and timestamps. Tests share it with the client's clock, so that a client
// that waits in fake time finds the window turned when it retries.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// WithRateLimit sets the primary budget: n requests an hour per resource
// (REST and GraphQL apart), 5000 unless set (GITHUB_TOKEN has 1000). Beyond
// it, requests are refused with 403, X-RateLimit-Remaining: 0 and the
// window's reset time, until the fake's clock reaches it.
func WithRateLimit(n int) Option { return func(s *Server) { s.rateLimit = n } }

// WithPerPage caps page sizes at n, below the client's per_page, so that
// tests exercise pagination with a handful of PRs.
func WithPerPage(n int) Option { return func(s *Server) { s.perPage = n } }

// SecondaryLimit is GitHub's secondary rate limit on content-creating
// requests (documented as 80 a minute and 500 an hour): beyond Writes
// within any Per, a write is refused with Status (403, GitHub's usual
// answer, or 429) and a Retry-After saying when the oldest write leaves the
// window. Reads are never refused.
type SecondaryLimit struct {
	Writes int
	Per    time.Duration
	Status int // 0: 403
}

// WithSecondaryLimit enforces l.
func WithSecondaryLimit(l SecondaryLimit) Option {
	if l.Status == 0 {
		l.Status = http.StatusForbidden
	}
	return func(s *Server) { s.secondary = &l }
}

// New starts a fake GitHub API. Close it when done.
func New(opts ...Option) *Server {
	s := &Server{token: DefaultToken, repos: map[string]*repo{}, nextID: 1000, used: map[string]int{}, clock: time.Now, rateLimit: defaultRateLimit,
		tokenLifetime: defaultTokenLifetime, apps: map[int64]*app{}, installations: map[int64]*installation{}, tokens: map[string]*issued{}}
	for _, o := range opts {
		o(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.http = httptest.NewServer(s)
	return s
}

// URL is the API base URL, usable as GITHUB_API_URL: set go-github's
// BaseURL to URL()+"/", or pass it to WithEnterpriseURLs (the /api/v3 prefix
// that adds is served too).
func (s *Server) URL() string { return s.http.URL }

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// FailNext makes the next authenticated request whose method is method (any
// when empty) and whose path, with its query ("/pulls?state=closed"),
// contains pathSubstring answer status with header added, and a body as
// GitHub's for that failure: a 403 with
// X-RateLimit-Remaining: 0 is a primary rate limit (go-github's
// *RateLimitError), a 403 or 429 with Retry-After a secondary one
// (*AbuseRateLimitError for 403). Faults queue in call order; each fires once.
func (s *Server) FailNext(method, pathSubstring string, status int, header http.Header) {
	s.QueueFault(forgetest.Fault{Method: method, Path: pathSubstring, Status: status, Header: header})
}

func (s *Server) routes() {
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /repos/{owner}/{repo}":                                     s.getRepo,
		"GET /repos/{owner}/{repo}/pulls":                               s.listPulls,
		"POST /repos/{owner}/{repo}/pulls":                              s.createPull,
		"GET /repos/{owner}/{repo}/pulls/{number}":                      s.getPull,
		"PATCH /repos/{owner}/{repo}/pulls/{number}":                    s.editPull,
		"GET /repos/{owner}/{repo}/pulls/{number}/merge":                s.isMerged,
		"PUT /repos/{owner}/{repo}/pulls/{number}/merge":                s.mergePull,
		"POST /repos/{owner}/{repo}/pulls/{number}/requested_reviewers": s.requestReviewers,
		"GET /repos/{owner}/{repo}/issues":                              s.listIssues,
		"POST /repos/{owner}/{repo}/issues":                             s.createIssue,
		"GET /repos/{owner}/{repo}/issues/{number}":                     s.getIssue,
		"PATCH /repos/{owner}/{repo}/issues/{number}":                   s.editIssue,
		"GET /repos/{owner}/{repo}/issues/{number}/comments":            s.listComments,
		"POST /repos/{owner}/{repo}/issues/{number}/comments":           s.createComment,
		"GET /repos/{owner}/{repo}/issues/{number}/labels":              s.listLabels,
		"POST /repos/{owner}/{repo}/issues/{number}/labels":             s.addLabels,
		"DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}":    s.removeLabel,
		"GET /repos/{owner}/{repo}/git/ref/{ref...}":                    s.getRef,
		"DELETE /repos/{owner}/{repo}/git/refs/{ref...}":                s.deleteRef,
		"POST /repos/{owner}/{repo}/statuses/{sha}":                     s.createStatus,
		"GET /repos/{owner}/{repo}/commits/{ref}/status":                s.combinedStatus,
		"POST /repos/{owner}/{repo}/check-runs":                         s.createCheckRun,
		"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":            s.listCheckRuns,
		"POST /repos/{owner}/{repo}/git/blobs":                          s.createBlob,
		"POST /repos/{owner}/{repo}/git/trees":                          s.createTree,
		"POST /repos/{owner}/{repo}/git/commits":                        s.createCommit,
		"GET /repos/{owner}/{repo}/git/commits/{sha}":                   s.getCommit,
		"POST /repos/{owner}/{repo}/git/refs":                           s.createRef,
		"PATCH /repos/{owner}/{repo}/git/refs/{ref...}":                 s.updateRef,
		"GET /app":                                   s.getApp,
		"GET /repos/{owner}/{repo}/installation":     s.repoInstallation,
		"POST /app/installations/{id}/access_tokens": s.createAccessToken,
		"GET /users/{login}":                         s.getUser,
		"GET /user":                                  s.getAuthenticatedUser,
		"POST /graphql":                              s.graphql,
		// Everything else, including a known path with another method,
		// is GitHub's JSON 404 rather than ServeMux's text 405.
		"/": notFound,
	} {
		s.mux.HandleFunc(pattern, h)
	}
}

type ctxKey struct{}

// ServeHTTP does what GitHub's front door does before routing: rate-limit
// accounting and headers, authentication, then the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	orig := r.URL.Path
	// GitHub Enterprise serves REST under /api/v3 and GraphQL at
	// /api/graphql; go-github's WithEnterpriseURLs adds the former.
	p := strings.TrimPrefix(orig, "/api/v3")
	if p == "/api/graphql" {
		p = "/graphql"
	}
	r = r.Clone(context.WithValue(r.Context(), ctxKey{}, orig))
	r.URL.Path, r.URL.RawPath = p, ""
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	who, why := s.authenticate(r)
	f, limited := s.account(w, r, who)
	if who == nil {
		writeError(w, http.StatusUnauthorized, why)
		return
	}
	if status, msg, ok := who.permitted(p); !ok {
		writeError(w, status, msg)
		return
	}
	if limited {
		writeError(w, http.StatusForbidden, "API rate limit exceeded for installation.")
		return
	}
	if f != nil {
		writeFault(w, *f)
		return
	}
	s.mux.ServeHTTP(w, withActor(r, who))
}

// account counts the request against the hourly budget and sets the
// X-RateLimit-* headers GitHub sends on every response; for authenticated
// requests (who is not nil) it also counts and logs writes and picks a
// pending fault.
func (s *Server) account(w http.ResponseWriter, r *http.Request, who *actor) (f *forgetest.Fault, limited bool) {
	resource := "core"
	if r.URL.Path == "/graphql" {
		resource = "graphql"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	if now.After(s.resetAt) {
		s.resetAt, s.used = now.Add(time.Hour).Truncate(time.Second), map[string]int{}
	}
	s.used[resource]++
	remaining := max(s.rateLimit-s.used[resource], 0)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(s.used[resource]))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.resetAt.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
	if who == nil {
		return nil, false
	}
	write := isWrite(r)
	s.CountRequest(write)
	if write {
		s.writeLog = append(s.writeLog, Write{Method: r.Method, Path: r.URL.Path, Actor: who.login})
	}
	if s.used[resource] > s.rateLimit {
		return nil, true
	}
	if write && s.secondary != nil {
		if wait, over := s.overSecondary(now); over {
			secs := strconv.Itoa(int((wait + time.Second - 1) / time.Second))
			return &forgetest.Fault{Status: s.secondary.Status, Header: http.Header{"Retry-After": {secs}}}, false
		}
	}
	if f, ok := s.TakeFault(r.Method, r.URL.Path+"?"+r.URL.RawQuery); ok {
		return &f, false
	}
	return nil, false
}

// overSecondary records a write at now, or reports how long until the
// secondary limit lets one through; the caller holds s.mu.
func (s *Server) overSecondary(now time.Time) (time.Duration, bool) {
	l := s.secondary
	keep := s.written[:0]
	for _, t := range s.written {
		if now.Sub(t) < l.Per {
			keep = append(keep, t)
		}
	}
	s.written = keep
	if len(s.written) >= l.Writes {
		return s.written[0].Add(l.Per).Sub(now), true
	}
	s.written = append(s.written, now)
	return 0, false
}

// isWrite reports whether r asks to change state. GraphQL queries are
// POSTs too, so the document is peeked at and put back.
func isWrite(r *http.Request) bool {
	// An App exchanging its JWT for a token changes nothing a repository
	// holds, and is no content for the secondary limit.
	if r.Method == http.MethodGet || r.Method == http.MethodHead || strings.HasPrefix(r.URL.Path, "/app/") {
		return false
	}
	if r.URL.Path != "/graphql" {
		return true
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var doc struct{ Query string }
	json.Unmarshal(body, &doc)
	return strings.HasPrefix(strings.TrimSpace(doc.Query), "mutation")
}

func writeFault(w http.ResponseWriter, f forgetest.Fault) {
	f.AddHeader(w)
	msg := http.StatusText(f.Status)
	doc := "https://docs.github.com/rest"
	switch {
	case f.Status == http.StatusForbidden && w.Header().Get("X-RateLimit-Remaining") == "0":
		msg = "API rate limit exceeded for installation."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	case f.Status == http.StatusTooManyRequests || (f.Status == http.StatusForbidden && w.Header().Get("Retry-After") != ""):
		msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	case f.Status >= 500:
		msg = "Server Error"
	}
	writeJSON(w, f.Status, errorBody{Message: msg, DocumentationURL: doc, Status: strconv.Itoa(f.Status)})
}

// errorBody is GitHub's error document; go-github decodes it into
// *github.ErrorResponse.
type errorBody struct {
	Message          string       `json:"message"`
	Errors           []fieldError `json:"errors,omitempty"`
	DocumentationURL string       `json:"documentation_url"`
	Status           string       `json:"status"`
}

type fieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Message: msg, DocumentationURL: "https://docs.github.com/rest", Status: strconv.Itoa(status)})
}

// writeInvalid is GitHub's 422 "Validation Failed" with per-field errors.
func writeInvalid(w http.ResponseWriter, errs ...fieldError) {
	writeJSON(w, http.StatusUnprocessableEntity, errorBody{
		Message: "Validation Failed", Errors: errs,
		DocumentationURL: "https://docs.github.com/rest", Status: "422",
	})
}

// custom is the free-text validation error GitHub uses for rules that are
// not about one field ("A pull request already exists for ...").
func custom(msg string) fieldError {
	return fieldError{Resource: "PullRequest", Code: "custom", Message: msg}
}

// decode reads a JSON body; GitHub answers malformed JSON with 400.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil && err != io.EOF {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeError(w, http.StatusNotFound, "Not Found")
}
