// Package azuretest is a stateful fake of the Azure DevOps Services (and
// Server) REST API, api-version 7.1, for the subset imagebot's
// pull-request lifecycle uses, served over HTTP so that tests drive it
// with the real driver (internal/gitops/forge/azure).
//
// It answers as Azure DevOps documents: every request must name an
// api-version (a 400 otherwise); pull requests are listed newest first by
// searchCriteria (status active unless asked, sourceRefName,
// targetRefName, creatorId, minTime) in pages of $top and $skip with no
// link to the next page, their descriptions cut to 400 characters (the
// full one only from GET pullrequests/{id}); a second active pull request
// for the same source and target is a 409 "TF401179"; a description over
// 4,000 characters a 400; refs are listed in pages chained by the
// x-ms-continuationtoken header; a request without credentials gets the
// sign-in page as a 203 (so does ExpiredToken), a wrong token a 401, a
// read-only token a 403 on writes, an unknown repository a 404 "TF401019". Labels are the pull
// request's tags (pullrequests/{id}/labels), reviewers are identities by
// ID (found through _apis/identities), comments are threads, statuses are
// per commit (latestOnly keeps each context's newest), connectionData says
// who the token is, and abandoning a pull request is closing it unmerged.
// A PAT authenticates as Basic with any user; an Azure Pipelines job
// token (a JWT) as Bearer.
//
// Tests script people with AbandonPR, CompletePR and OpenPR, set branches
// with SetBranch, inject faults with FailNext and RateLimitNext (a 429
// with Retry-After and the X-RateLimit-* headers Azure DevOps sends), and
// assert on PRs, Requests and Writes; OpenPRFrom is a person's pull
// request with a description, from a fork (listed with its forkSource).
// It models no git of its own (WithGitRemote passes git to a git server),
// policies or work items.
package azuretest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// The organisation, project and repository New serves.
const (
	Org     = "contoso"
	Project = "Fabrikam Fiber"
	Repo    = "deploy"
)

// Tokens: DefaultToken is the bot's PAT (Basic), PipelineToken an Azure
// Pipelines job token (Bearer), ReadOnlyToken a PAT with Code (read).
const (
	DefaultToken  = "azdopat0000000000000000000000000000000000000000bot"
	PipelineToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJidWlsZCJ9.c2lnbmF0dXJl"
	ReadOnlyToken = "azdopat000000000000000000000000000000000000000read"
	// ExpiredToken is a PAT past its expiry, which Azure DevOps Services
	// often answers with its sign-in page (a 203 with HTML), not a 401.
	ExpiredToken = "azdopat000000000000000000000000000000000000expired"
)

// Identity is a user or group as Azure DevOps names it: an ID (a GUID),
// a unique name (the sign-in e-mail, DOMAIN\user on Server) and a
// display name.
type Identity struct {
	ID, UniqueName, DisplayName string
}

// Bot is who DefaultToken and PipelineToken act as; Human a person.
var (
	Bot   = Identity{ID: "1f0e1a2b-0000-4000-8000-00000000b07a", UniqueName: "imagebot@contoso.com", DisplayName: "imagebot"}
	Human = Identity{ID: "2c0e1a2b-0000-4000-8000-00000000a0e0", UniqueName: "jane@contoso.com", DisplayName: "Jane"}
	Team  = Identity{ID: "3d0e1a2b-0000-4000-8000-00000000f0f0", UniqueName: "[Fabrikam Fiber]\\Platform", DisplayName: "Platform"}
)

// PR is a pull request as the fake keeps it.
type PR struct {
	ID                 int
	Title, Description string
	Source, Target     string // refs/heads/...
	Status             string // active, abandoned, completed
	IsDraft            bool
	CreatedBy          Identity
	Created, Closed    time.Time
	Labels             []string
	Reviewers          []string // identity IDs
	AutoCompleteSetBy  string   // identity ID, "" when off
	Threads            [][]Comment
	// Fork is the repository a fork's pull request comes from ("" for
	// the repository's own branch): Azure DevOps lists it as forkSource.
	Fork string
}

// Comment is one comment of a thread.
type Comment struct {
	Content string
	Author  Identity
}

// Status is a commit status.
type Status struct {
	State, Genre, Name string
	Created            time.Time
}

// Server is a fake Azure DevOps on a local httptest server. Its methods
// are safe for concurrent use.
type Server struct {
	http     *httptest.Server
	basePath string
	perPage  int // the largest $top honoured
	refPage  int // refs per page before a continuation token
	clock    func() time.Time

	project, repo string
	git           forgetest.GitBackend // nil: branches are kept in branches
	gitOwner      string
	gitName       string
	gitRemote     http.Handler // WithGitRemote's; nil serves no git

	// Meter counts the API requests served (Requests) and those that
	// changed something (Writes), and holds the faults FailNext and
	// RateLimitNext queue.
	forgetest.Meter

	mu         sync.Mutex
	tokens     map[string]Identity // token -> who
	readOnly   map[string]bool
	identities []Identity
	defBranch  string
	branches   map[string]string // refs/heads/x -> sha
	prs        []*PR
	statuses   map[string][]Status // sha -> newest last
}

// Option configures New.
type Option func(*Server)

// WithPerPage sets the largest page of pull requests and statuses.
func WithPerPage(n int) Option { return func(s *Server) { s.perPage = n } }

// WithRefPage sets how many refs a page holds before a continuation token.
func WithRefPage(n int) Option { return func(s *Server) { s.refPage = n } }

// WithBasePath serves the organisations under a path, as Azure DevOps
// Server does ("/tfs": https://host/tfs/DefaultCollection).
func WithBasePath(p string) Option { return func(s *Server) { s.basePath = p } }

// WithClock sets the time pull requests and statuses are made at.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.clock = now } }

// New starts a fake with one repository, Org/Project/Repo, whose default
// branch is main.
func New(opts ...Option) *Server {
	s := &Server{perPage: 100, refPage: 100, clock: time.Now, project: Project, repo: Repo,
		tokens:     map[string]Identity{DefaultToken: Bot, PipelineToken: Bot, ReadOnlyToken: Bot},
		readOnly:   map[string]bool{ReadOnlyToken: true},
		identities: []Identity{Bot, Human, Team},
		defBranch:  "refs/heads/main",
		branches:   map[string]string{"refs/heads/main": strings.Repeat("a", 40)},
		statuses:   map[string][]Status{}}
	for _, o := range opts {
		o(s)
	}
	s.http = httptest.NewServer(forgetest.Mount(s.basePath, http.HandlerFunc(s.serve)))
	return s
}

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// URL is the organisation's URL: what SYSTEM_COLLECTIONURI holds, without
// its trailing slash ("https://dev.azure.com/contoso").
func (s *Server) URL() string { return s.http.URL + s.basePath + "/" + Org }

// FailNext answers the next request with status (a 5xx, say).
func (s *Server) FailNext(status int) {
	s.QueueFault(forgetest.Fault{Status: status, Body: `{"message":"injected failure"}`})
}

// RateLimitNext answers the next request with a 429 as Azure DevOps
// throttles: Retry-After and the X-RateLimit-* headers of the resource
// that ran out.
func (s *Server) RateLimitNext(retryAfter time.Duration) {
	h := http.Header{}
	secs := int(retryAfter / time.Second)
	h.Set("Retry-After", strconv.Itoa(secs))
	h.Set("X-RateLimit-Resource", "Core")
	h.Set("X-RateLimit-Delay", "0.5")
	h.Set("X-RateLimit-Limit", "200")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(s.clock().Add(retryAfter).Unix(), 10))
	s.QueueFault(forgetest.Fault{Status: http.StatusTooManyRequests, Header: h,
		Body: `{"message":"TF400733: The request has been canceled: Request was blocked due to exceeding usage of resource 'Core' in namespace 'User'."}`})
}

// WithToken makes token a PAT of who's.
func WithToken(token string, who Identity) Option {
	return func(s *Server) { s.tokens[token] = who }
}

// WithGit serves the repository owner/name of a git backend (gittest's
// bare repositories, through forgetest.BareRepos) as Project owner,
// repository name: its branches are the refs, and CompletePR merges
// there. Refs are then looked up by exact name, not listed by prefix.
func WithGit(git forgetest.GitBackend, owner, name string) Option {
	return func(s *Server) { s.git, s.gitOwner, s.gitName, s.project, s.repo = git, owner, name, owner, name }
}

// SetBranch points a branch ("main") at sha; "" deletes it.
func (s *Server) SetBranch(name, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sha == "" {
		delete(s.branches, "refs/heads/"+name)
		return
	}
	s.branches["refs/heads/"+name] = sha
}

// Branch is a branch's commit, "" when it does not exist.
func (s *Server) Branch(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branches["refs/heads/"+name]
}

// SetStatus adds a status to a commit, as a pipeline posts it.
func (s *Server) SetStatus(sha string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Created = s.clock()
	s.statuses[sha] = append(s.statuses[sha], st)
}

// OpenPR opens a pull request as who, from branch source into target.
func (s *Server) OpenPR(who Identity, source, target, title string) *PR {
	return s.OpenPRFrom(who, "", source, target, title, "")
}

// OpenPRFrom opens a pull request as who with a description, from branch
// source of fork (a repository's name; "" for this repository's own
// branch) into target, as a person does in the web UI.
func (s *Server) OpenPRFrom(who Identity, fork, source, target, title, description string) *PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.open(who, "refs/heads/"+source, "refs/heads/"+target, title, description, false)
	pr.Fork = fork
	return pr
}

func (s *Server) open(who Identity, source, target, title, desc string, draft bool) *PR {
	pr := &PR{ID: len(s.prs) + 1, Title: title, Description: desc, Source: source, Target: target,
		Status: "active", IsDraft: draft, CreatedBy: who, Created: s.clock()}
	s.prs = append(s.prs, pr)
	return pr
}

// AbandonPR abandons a pull request, as a person closing it unmerged.
func (s *Server) AbandonPR(id int) { s.setStatus(id, "abandoned") }

// CompletePR completes (merges) a pull request: with WithGit, its source
// is merged into its target there first.
func (s *Server) CompletePR(id int) error {
	s.mu.Lock()
	pr := s.pr(id)
	s.mu.Unlock()
	if pr == nil {
		return fmt.Errorf("no pull request %d", id)
	}
	if s.git != nil {
		// The merge commit is made at the fake's clock: a lead or soak
		// measured from the merge is tested in the test's time.
		_, err := s.git.Merge(s.gitOwner, s.gitName, forgetest.MergeRequest{Base: strings.TrimPrefix(pr.Target, "refs/heads/"),
			Head: strings.TrimPrefix(pr.Source, "refs/heads/"), Method: "merge", Title: pr.Title, When: s.clock()})
		if err != nil {
			return err
		}
	}
	s.setStatus(id, "completed")
	return nil
}

func (s *Server) setStatus(id int, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr := s.pr(id); pr != nil {
		pr.Status, pr.Closed = status, s.clock()
	}
}

// PRs is a copy of every pull request, oldest first.
func (s *Server) PRs() []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]PR, len(s.prs))
	for i, pr := range s.prs {
		out[i] = *pr
		out[i].Labels = append([]string(nil), pr.Labels...)
		out[i].Reviewers = append([]string(nil), pr.Reviewers...)
		out[i].Threads = append([][]Comment(nil), pr.Threads...)
	}
	return out
}

func (s *Server) pr(id int) *PR {
	if id < 1 || id > len(s.prs) {
		return nil
	}
	return s.prs[id-1]
}

// who is the identity r's credentials name: ok false with the answer
// already written when they name none.
func (s *Server) who(w http.ResponseWriter, r *http.Request) (Identity, string, bool) {
	auth := r.Header.Get("Authorization")
	var token string
	switch {
	case strings.HasPrefix(auth, "Basic "):
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
		if err == nil {
			_, token, _ = strings.Cut(string(raw), ":")
		}
		if strings.Count(token, ".") == 2 {
			token = "" // a job token is Bearer only
		}
	case strings.HasPrefix(auth, "Bearer "):
		token = strings.TrimPrefix(auth, "Bearer ")
		if strings.Count(token, ".") != 2 {
			token = "" // a PAT is Basic only
		}
	default:
		signIn(w)
		return Identity{}, "", false
	}
	if token == ExpiredToken {
		signIn(w)
		return Identity{}, "", false
	}
	id, ok := s.tokens[token]
	if !ok {
		w.Header().Set("X-TFS-ProcessId", "00000000-0000-0000-0000-000000000000")
		writeErr(w, http.StatusUnauthorized, "TF400813: The user '' is not authorized to access this resource.", "UnauthorizedRequestException")
		return Identity{}, "", false
	}
	return id, token, true
}

// signIn answers as Azure DevOps Services does an anonymous API request,
// or one with an expired PAT: its sign-in page, 203 Non-Authoritative
// Information.
func signIn(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNonAuthoritativeInfo)
	fmt.Fprint(w, "<html><head><title>Azure DevOps Services | Sign In</title></head></html>")
}

// writeErr writes Azure DevOps' error body.
func writeErr(w http.ResponseWriter, status int, message, typeKey string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"$id": "1", "innerException": nil, "message": message,
		"typeName": "Microsoft.TeamFoundation." + typeKey + ", Microsoft.TeamFoundation", "typeKey": typeKey, "errorCode": 0, "eventId": 3000})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// list writes a collection as Azure DevOps wraps one.
func list[T any](w http.ResponseWriter, items []T) {
	if items == nil {
		items = []T{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(items), "value": items})
}
