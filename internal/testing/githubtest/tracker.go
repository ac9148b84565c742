package githubtest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Issues, as GitHub's: numbered with the pull requests, listed together
// with them (a PR in a listing carries "pull_request"), filtered by
// creator, state and labels, paged; 410 when the repository has issues
// turned off, 422 for a body over 65,536 characters.

type issue struct {
	id, number       int64
	author           string
	title, body      string
	state            string // "open" or "closed"
	labels           []string
	created, updated time.Time
	closed           time.Time
}

// Issue is a snapshot of an issue for assertions.
type Issue struct {
	Number           int
	Author, Title    string
	Body, State      string
	Labels           []string
	Created, Updated time.Time
	ClosedAtIsZero   bool
}

// WithIssuesDisabled turns the repository's issues off: GitHub answers
// every issue endpoint with 410 Gone.
func WithIssuesDisabled() RepoOption { return func(r *repo) { r.issuesOff = true } }

// nextNumber is the number of the next issue or pull request.
func (r *repo) nextNumber() int64 { return int64(len(r.pulls) + len(r.issues) + 1) }

// pull is the pull request numbered n, or nil.
func (r *repo) pull(n int) *pull {
	i, ok := slices.BinarySearchFunc(r.pulls, int64(n), func(p *pull, n int64) int { return cmp.Compare(p.number, n) })
	if !ok {
		return nil
	}
	return r.pulls[i]
}

func (r *repo) issue(n int) *issue {
	i, ok := slices.BinarySearchFunc(r.issues, int64(n), func(is *issue, n int64) int { return cmp.Compare(is.number, n) })
	if !ok {
		return nil
	}
	return r.issues[i]
}

// Issues returns the issues of owner/name (not the pull requests) in number order.
func (s *Server) Issues(owner, name string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(owner, name)]
	if r == nil {
		return nil
	}
	var out []Issue
	for _, is := range r.issues {
		out = append(out, Issue{Number: int(is.number), Author: is.author, Title: is.title, Body: is.body, State: is.state,
			Labels: slices.Clone(is.labels), Created: is.created, Updated: is.updated, ClosedAtIsZero: is.closed.IsZero()})
	}
	return out
}

// OpenIssue opens an issue as login would (a person, or someone copying
// the bot's words) and returns its number.
func (s *Server) OpenIssue(owner, name, login, title, body string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.named(owner, name)
	if err != nil {
		return 0, err
	}
	t := s.now()
	is := &issue{id: s.id(), number: r.nextNumber(), author: login, title: title, body: body, state: "open", created: t, updated: t}
	r.issues = append(r.issues, is)
	return int(is.number), nil
}

// EditIssue changes an issue as a person would from the web page: its
// body when body is not nil (ticking a box is such an edit), its title
// when title is not "", its state when state is not "".
func (s *Server) EditIssue(owner, name string, number int, title string, body *string, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.named(owner, name)
	if err != nil {
		return err
	}
	is := r.issue(number)
	if is == nil {
		return fmt.Errorf("%s/%s#%d: no such issue", owner, name, number)
	}
	is.apply(title, body, state, s.now())
	return nil
}

func (is *issue) apply(title string, body *string, state string, t time.Time) {
	if title != "" {
		is.title = title
	}
	if body != nil {
		is.body = *body
	}
	if state != "" && state != is.state {
		is.state = state
		is.closed = time.Time{}
		if state == "closed" {
			is.closed = t
		}
	}
	is.updated = t
}

type issueJSON struct {
	ID          int64       `json:"id"`
	NodeID      string      `json:"node_id"`
	Number      int64       `json:"number"`
	URL         string      `json:"url"`
	HTMLURL     string      `json:"html_url"`
	Title       string      `json:"title"`
	Body        *string     `json:"body"`
	State       string      `json:"state"`
	User        userJSON    `json:"user"`
	Labels      []labelJSON `json:"labels"`
	CreatedAt   string      `json:"created_at"`
	UpdatedAt   string      `json:"updated_at"`
	ClosedAt    *string     `json:"closed_at"`
	PullRequest *struct {
		URL     string `json:"url"`
		HTMLURL string `json:"html_url"`
	} `json:"pull_request,omitempty"`
}

func (s *Server) issueJSON(r *repo, is *issue) issueJSON {
	var body *string
	if is.body != "" {
		body = &is.body // GitHub sends null for an empty body
	}
	j := issueJSON{
		ID: is.id, NodeID: nodeID("I", fmt.Sprint(is.id)), Number: is.number,
		URL:     fmt.Sprintf("%s/repos/%s/%s/issues/%d", s.URL(), r.owner, r.name, is.number),
		HTMLURL: fmt.Sprintf("%s/%s/%s/issues/%d", s.URL(), r.owner, r.name, is.number),
		Title:   is.title, Body: body, State: is.state, User: user(is.author), Labels: []labelJSON{},
		CreatedAt: stamp(is.created), UpdatedAt: stamp(is.updated), ClosedAt: nullTime(is.closed),
	}
	for _, l := range is.labels {
		j.Labels = append(j.Labels, s.labelJSON(r, l))
	}
	return j
}

// pullAsIssue is a pull request as the issues listing shows it.
func (s *Server) pullAsIssue(r *repo, p *pull) issueJSON {
	is := &issue{id: p.id, number: p.number, author: p.author, title: p.title, body: p.body, state: p.state,
		labels: p.labels, created: p.created, updated: p.updated, closed: p.closed}
	j := s.issueJSON(r, is)
	j.PullRequest = &struct {
		URL     string `json:"url"`
		HTMLURL string `json:"html_url"`
	}{fmt.Sprintf("%s/repos/%s/%s/pulls/%d", s.URL(), r.owner, r.name, p.number), fmt.Sprintf("%s/%s/%s/pull/%d", s.URL(), r.owner, r.name, p.number)}
	return j
}

// lockIssues is lockRepo for the issue endpoints: 410 when issues are off.
func (s *Server) lockIssues(w http.ResponseWriter, req *http.Request, in any) *repo {
	r := s.lockRepo(w, req, in)
	if r != nil && r.issuesOff {
		s.mu.Unlock()
		writeError(w, http.StatusGone, "Issues are disabled for this repo")
		return nil
	}
	return r
}

// listIssues filters (state, creator, labels), sorts (created or
// updated, newest first unless asked) and pages issues and pull requests
// together.
func (s *Server) listIssues(w http.ResponseWriter, req *http.Request) {
	r := s.lockIssues(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	q := req.URL.Query()
	state := cmp.Or(q.Get("state"), "open")
	var labels []string
	if l := q.Get("labels"); l != "" {
		labels = strings.Split(l, ",")
	}
	var all []issueJSON
	keep := func(author, st string, ls []string) bool {
		if state != "all" && st != state || q.Get("creator") != "" && !strings.EqualFold(q.Get("creator"), author) {
			return false
		}
		for _, l := range labels {
			if !slices.ContainsFunc(ls, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(l)) }) {
				return false
			}
		}
		return true
	}
	for _, p := range r.pulls {
		s.sync(r, p, false)
		if keep(p.author, p.state, p.labels) {
			all = append(all, s.pullAsIssue(r, p))
		}
	}
	for _, is := range r.issues {
		if keep(is.author, is.state, is.labels) {
			all = append(all, s.issueJSON(r, is))
		}
	}
	key := func(j issueJSON) string { return j.CreatedAt }
	if q.Get("sort") == "updated" {
		key = func(j issueJSON) string { return j.UpdatedAt }
	}
	desc := q.Get("direction") != "asc"
	slices.SortFunc(all, func(a, b issueJSON) int {
		if desc {
			a, b = b, a
		}
		return cmp.Or(strings.Compare(key(a), key(b)), cmp.Compare(a.Number, b.Number))
	})
	lo, hi := s.page(w, req, len(all))
	writeJSON(w, http.StatusOK, append([]issueJSON{}, all[lo:hi]...))
}

type issueInput struct {
	Title  *string
	Body   *string
	State  *string
	Labels []labelName
}

func (in issueInput) check() []fieldError {
	return tooLong("Issue", deref(in.Title), deref(in.Body))
}

func (s *Server) createIssue(w http.ResponseWriter, req *http.Request) {
	var in issueInput
	r := s.lockIssues(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	errs := in.check()
	if strings.TrimSpace(deref(in.Title)) == "" {
		errs = append(errs, fieldError{Resource: "Issue", Field: "title", Code: "missing_field"})
	}
	if len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	t := s.now()
	is := &issue{id: s.id(), number: r.nextNumber(), author: actorOf(req).login, title: *in.Title, body: deref(in.Body), state: "open", created: t, updated: t}
	for _, l := range in.Labels {
		if r.labels[strings.ToLower(string(l))] == 0 {
			r.labels[strings.ToLower(string(l))] = s.id()
		}
		is.labels = addFold(is.labels, string(l))
	}
	r.issues = append(r.issues, is)
	j := s.issueJSON(r, is)
	w.Header().Set("Location", j.URL)
	writeJSON(w, http.StatusCreated, j)
}

// issueOrPull resolves {number} to an issue, or a pull request seen as one.
func (s *Server) issueOrPull(w http.ResponseWriter, req *http.Request, in any) (*repo, *issue, *pull) {
	r := s.lockIssues(w, req, in)
	if r == nil {
		return nil, nil, nil
	}
	n, _ := strconv.Atoi(req.PathValue("number"))
	if is := r.issue(n); is != nil {
		return r, is, nil
	}
	if p := r.pull(n); p != nil {
		return r, nil, p
	}
	s.mu.Unlock()
	notFound(w, req)
	return nil, nil, nil
}

func (s *Server) getIssue(w http.ResponseWriter, req *http.Request) {
	r, is, p := s.issueOrPull(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	if p != nil {
		writeJSON(w, http.StatusOK, s.pullAsIssue(r, p))
		return
	}
	writeJSON(w, http.StatusOK, s.issueJSON(r, is))
}

// editIssue edits an issue; pull requests are edited through /pulls here.
func (s *Server) editIssue(w http.ResponseWriter, req *http.Request) {
	var in issueInput
	r, is, p := s.issueOrPull(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	if p != nil {
		writeError(w, http.StatusUnprocessableEntity, "editing a pull request as an issue is not modelled: use PATCH /pulls")
		return
	}
	if errs := in.check(); len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		writeInvalid(w, fieldError{Resource: "Issue", Field: "state", Code: "invalid"})
		return
	}
	is.apply(deref(in.Title), in.Body, deref(in.State), s.now())
	writeJSON(w, http.StatusOK, s.issueJSON(r, is))
}
