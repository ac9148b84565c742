// Package bitbuckettest is a stateful fake of Bitbucket Cloud's REST API
// 2.0 (https://api.bitbucket.org/2.0), for the subset imagebot's
// pull-request lifecycle uses, served over HTTP so that tests drive it
// with the real driver (internal/gitops/forge/bitbucket).
//
// It answers as Bitbucket Cloud documents: Basic auth with the Atlassian
// account's e-mail and an API token (a wrong pair is a 401, a token
// without write scope a 403 on writes); paged listings of `pagelen` (10
// unasked, at most 50) with `page`, `size` and a `next` link that carries
// the query on; pull requests filtered by repeated `state` (OPEN unless
// asked) and by `q`, Bitbucket's query language (field = "value", ~ for
// contains, >= for dates, joined by AND), sorted by `sort`; a second open
// pull request from a source branch to the same destination a 400, as
// Bitbucket answers "There is already an open pull request"; a declined
// pull request DECLINED and a merged one MERGED; comments with
// content.raw; effective default reviewers; commit statuses keyed by
// `key` (SUCCESSFUL, FAILED, INPROGRESS, STOPPED); issues, a 404 where
// the repository's tracker is off; and error bodies
// {"type":"error","error":{"message":...}}.
//
// With WithGit, branches are a forgetest.GitBackend's (gittest's bare
// repositories): a pull request needs its branches, MergePR merges and
// deleting a branch deletes it. Without, no git is modelled.
//
// Tests script people with OpenPR, DeclinePR, MergePR, OpenIssue,
// EditIssue and AddStatus, inject faults with FailNext (a 429 with
// Retry-After, 5xx), and assert on PRs, Issues, Requests and Writes. It models no forks' repositories,
// workspaces' permissions or webhooks.
//
// NewDataCenter is Bitbucket Data Center's REST API 1.0 the same way (see
// DataCenter), which the Data Center driver speaks to.
package bitbuckettest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// The bot's account, as /2.0/user shows it, and the e-mail and API token
// it authenticates with unless WithToken says otherwise.
const (
	BotEmail     = "imagebot@example.com"
	DefaultToken = "ATATT_fake_token"
	BotAccountID = "557058:bot"
	BotUUID      = "{00000000-0000-0000-0000-00000000b07}"
	HumanID      = "557058:jane"
)

// Server is a fake Bitbucket Cloud API on a local httptest server. Its
// methods are safe for concurrent use.
type Server struct {
	email, token string
	readOnly     map[string]bool // tokens without write scopes
	perPage      int             // the largest pagelen
	clock        func() time.Time
	http         *httptest.Server

	// Meter counts authenticated API requests (Requests) and those of
	// them that ask to change something (Writes: every method but GET and
	// HEAD), refused or not, and holds FailNext's faults.
	forgetest.Meter

	mu    sync.Mutex
	repos map[string]*Repo
}

// Option configures New.
type Option func(*Server)

// WithToken sets the e-mail and API token the bot authenticates with.
func WithToken(email, token string) Option {
	return func(s *Server) { s.email, s.token = email, token }
}

// WithReadOnlyToken adds a token of the bot's with read scopes only: its
// writes are a 403, as a token without write:pullrequest:bitbucket is.
func WithReadOnlyToken(token string) Option { return func(s *Server) { s.readOnly[token] = true } }

// WithPerPage sets the largest page (Bitbucket's is 50 for pull requests),
// so that a few PRs take several pages.
func WithPerPage(n int) Option { return func(s *Server) { s.perPage = n } }

// WithClock sets the time the fake lives in.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// New starts a fake Bitbucket Cloud. Close it when done.
func New(opts ...Option) *Server {
	s := &Server{email: BotEmail, token: DefaultToken, readOnly: map[string]bool{}, perPage: 50,
		clock: time.Now, repos: map[string]*Repo{}}
	for _, o := range opts {
		o(s)
	}
	const r = "/2.0/repositories/{ws}/{repo}"
	mux := http.NewServeMux()
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /2.0/user":                              s.getUser,
		"GET " + r:                                   s.getRepo,
		"GET " + r + "/pullrequests":                 s.listPulls,
		"POST " + r + "/pullrequests":                s.createPull,
		"GET " + r + "/pullrequests/{id}":            s.getPull,
		"PUT " + r + "/pullrequests/{id}":            s.updatePull,
		"POST " + r + "/pullrequests/{id}/decline":   s.declinePull,
		"GET " + r + "/pullrequests/{id}/comments":   s.listComments,
		"POST " + r + "/pullrequests/{id}/comments":  s.createComment,
		"GET " + r + "/effective-default-reviewers":  s.defaultReviewers,
		"GET " + r + "/commit/{sha}/statuses":        s.listStatuses,
		"POST " + r + "/commit/{sha}/statuses/build": s.createStatus,
		"GET " + r + "/issues":                       s.listIssues,
		"POST " + r + "/issues":                      s.createIssue,
		"PUT " + r + "/issues/{id}":                  s.updateIssue,
		"DELETE " + r + "/refs/branches/{name...}":   s.deleteBranch,
		"/": func(w http.ResponseWriter, _ *http.Request) { fail(w, http.StatusNotFound, "Resource not found") },
	} {
		mux.HandleFunc(pattern, h)
	}
	s.http = httptest.NewServer(s.front(mux))
	return s
}

// URL is the API's root, https://api.bitbucket.org's stand-in: the
// driver's APIURL. The API lives under URL()/2.0.
func (s *Server) URL() string { return s.http.URL }

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// FailNext makes the next authenticated request with method (any when
// empty) whose path and query contain pathSubstring answer status with
// header: a 429 with Retry-After is Bitbucket's rate limit. Faults fire
// once each, in order.
func (s *Server) FailNext(method, pathSubstring string, status int, header http.Header) {
	s.QueueFault(forgetest.Fault{Method: method, Path: pathSubstring, Status: status, Header: header})
}

// front authenticates (Basic e-mail:token, as API tokens are used with
// the REST API), counts, and fires faults before routing.
func (s *Server) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := basicAuth(r)
		known := ok && strings.EqualFold(user, s.email) && (pass == s.token || s.readOnly[pass])
		if !known {
			fail(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		write := r.Method != http.MethodGet && r.Method != http.MethodHead
		s.CountRequest(write)
		if f, ok := s.TakeFault(r.Method, r.URL.RequestURI()); ok {
			f.AddHeader(w)
			fail(w, f.Status, http.StatusText(f.Status))
			return
		}
		if write && s.readOnly[pass] {
			fail(w, http.StatusForbidden, "Your credentials lack one or more required privilege scopes.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func basicAuth(r *http.Request) (user, pass string, ok bool) {
	h, found := strings.CutPrefix(r.Header.Get("Authorization"), "Basic ")
	if !found {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(b), ":")
	return user, pass, ok
}

// fail writes Bitbucket's error body.
func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"message": msg}})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) getUser(w http.ResponseWriter, _ *http.Request) {
	reply(w, http.StatusOK, user(BotAccountID))
}

// user is an account as Bitbucket shows it since 2019: no username, a
// display name, a nickname, an account ID and a UUID.
func user(accountID string) map[string]any {
	name := strings.TrimPrefix(accountID, "557058:")
	uuid := "{" + name + "}"
	if accountID == BotAccountID {
		uuid = BotUUID
	}
	return map[string]any{"type": "user", "account_id": accountID, "uuid": uuid, "nickname": name, "display_name": name}
}
