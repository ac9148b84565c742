package githubtest

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

func (s *Server) getRepo(w http.ResponseWriter, req *http.Request) {
	if r := s.lockRepo(w, req, nil); r != nil {
		defer s.mu.Unlock()
		writeJSON(w, http.StatusOK, s.repoJSON(r))
	}
}

// listPulls filters, sorts (newest first unless asked otherwise) and pages.
func (s *Server) listPulls(w http.ResponseWriter, req *http.Request) {
	r := s.lockRepo(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	q := req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	// GitHub only honours head in "owner:branch" form; a bare branch name
	// is silently ignored and every PR comes back.
	headOwner, headRef, qualified := strings.Cut(q.Get("head"), ":")
	var ps []*pull
	for _, p := range r.pulls {
		s.sync(r, p, false)
		switch {
		case state != "all" && p.state != state,
			qualified && (!strings.EqualFold(headOwner, p.headOwner(r)) || p.head != headRef),
			q.Get("base") != "" && p.base != q.Get("base"):
			continue
		}
		ps = append(ps, p)
	}
	sortKey := func(p *pull) int64 { return p.created.Unix()<<20 | p.number }
	if q.Get("sort") == "updated" {
		sortKey = func(p *pull) int64 { return p.updated.Unix()<<20 | p.number }
	}
	desc := q.Get("direction") == "desc" || (q.Get("direction") == "" && (q.Get("sort") == "" || q.Get("sort") == "created"))
	slices.SortFunc(ps, func(a, b *pull) int {
		if desc {
			a, b = b, a
		}
		return cmp.Compare(sortKey(a), sortKey(b))
	})
	lo, hi := s.page(w, req, len(ps))
	out := []pullJSON{}
	for _, p := range ps[lo:hi] {
		out = append(out, s.pullJSON(r, p))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createPull(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	r := s.lockRepo(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	head := in.Head
	var fork *repo
	if owner, ref, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, r.owner) {
			if fork = s.forkOf(r, owner); fork == nil {
				writeInvalid(w, fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
				return
			}
		}
		head = ref
	}
	if fork != nil {
		s.createForkPull(w, req, r, fork, head, in.Title, in.Base, in.Body)
		return
	}
	var errs []fieldError
	for _, f := range []struct{ name, value string }{{"title", in.Title}, {"head", head}, {"base", in.Base}} {
		if f.value == "" {
			errs = append(errs, fieldError{Resource: "PullRequest", Field: f.name, Code: "missing_field"})
		}
	}
	errs = append(errs, tooLong("PullRequest", in.Title, in.Body)...)
	if len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	baseSHA, baseOK := r.git.BranchSHA(r.owner, r.name, in.Base)
	headSHA, headOK := r.git.BranchSHA(r.owner, r.name, head)
	if !baseOK {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
	}
	if !headOK {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
	}
	if len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	if s.openPullFor(r, head, in.Base) != nil {
		writeInvalid(w, custom(fmt.Sprintf("A pull request already exists for %s:%s.", r.owner, head)))
		return
	}
	c, err := r.git.Compare(r.owner, r.name, in.Base, head)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if c.AheadBy == 0 {
		writeInvalid(w, custom(fmt.Sprintf("No commits between %s and %s", in.Base, head)))
		return
	}
	t := s.now()
	p := &pull{
		id: s.id(), number: r.nextNumber(), title: in.Title, body: in.Body,
		head: head, base: in.Base, state: "open", draft: in.Draft,
		headSHA: headSHA, baseSHA: baseSHA, created: t, updated: t, cmp: &c,
		author: actorOf(req).login,
	}
	r.pulls = append(r.pulls, p)
	j := s.fullPullJSON(r, p)
	w.Header().Set("Location", j.URL)
	writeJSON(w, http.StatusCreated, j)
}

// createForkPull opens a pull request from a fork's branch: its commits
// are the fork's, so the head is taken as it is, without a comparison.
func (s *Server) createForkPull(w http.ResponseWriter, req *http.Request, r, fork *repo, head, title, base, body string) {
	headSHA, ok := fork.git.BranchSHA(fork.owner, fork.name, head)
	_, baseOK := r.git.BranchSHA(r.owner, r.name, base)
	errs := tooLong("PullRequest", title, body)
	if title == "" {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
	}
	if !ok {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
	}
	if !baseOK {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
	}
	if len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	t := s.now()
	p := &pull{
		id: s.id(), number: r.nextNumber(), title: title, body: body,
		head: head, headRepo: fork, base: base, state: "open",
		headSHA: headSHA, created: t, updated: t, author: actorOf(req).login,
	}
	r.pulls = append(r.pulls, p)
	j := s.fullPullJSON(r, p)
	w.Header().Set("Location", j.URL)
	writeJSON(w, http.StatusCreated, j)
}

// headOwner is the owner of the repository p's head branch is in.
func (p *pull) headOwner(r *repo) string {
	if p.headRepo != nil {
		return p.headRepo.owner
	}
	return r.owner
}

func (s *Server) getPull(w http.ResponseWriter, req *http.Request) {
	if r, p := s.lockPull(w, req, nil); p != nil {
		defer s.mu.Unlock()
		s.sync(r, p, true)
		writeJSON(w, http.StatusOK, s.fullPullJSON(r, p))
	}
}

// editPull changes title, body, base and state. Reopening follows GitHub:
// not once merged, not without the head branch, not after the branch was
// force-pushed or recreated, not beside another open PR for the branch.
func (s *Server) editPull(w http.ResponseWriter, req *http.Request) {
	var in struct{ Title, Body, State, Base *string }
	r, p := s.lockPull(w, req, &in)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	s.sync(r, p, false)
	if errs := tooLong("PullRequest", deref(in.Title), deref(in.Body)); len(errs) > 0 {
		writeInvalid(w, errs...)
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		writeInvalid(w, fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		return
	}
	if in.Base != nil && *in.Base != p.base {
		if p.state != "open" {
			writeInvalid(w, custom("Cannot change base branch of closed pull request"))
			return
		}
		if _, ok := r.git.BranchSHA(r.owner, r.name, *in.Base); !ok {
			writeInvalid(w, fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
		p.base = *in.Base
	}
	if in.State != nil && *in.State == "open" && p.state == "closed" {
		if msg := s.reopenBlocked(r, p); msg != "" {
			writeInvalid(w, fieldError{Resource: "PullRequest", Field: "state", Code: "custom", Message: msg})
			return
		}
		p.state, p.closed = "open", time.Time{}
	}
	if in.State != nil && *in.State == "closed" && p.state == "open" {
		s.closePull(p)
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	p.updated = s.now()
	s.sync(r, p, true)
	writeJSON(w, http.StatusOK, s.fullPullJSON(r, p))
}

func (s *Server) reopenBlocked(r *repo, p *pull) string {
	if p.merged {
		return "state cannot be changed. The pull request has already been merged."
	}
	if _, ok := r.git.BranchSHA(r.owner, r.name, p.head); !ok {
		return fmt.Sprintf("state cannot be changed. The %s branch has been deleted.", p.head)
	}
	// New commits on top are fine; history that no longer contains the
	// closed head is not.
	if c, err := r.git.Compare(r.owner, r.name, p.headSHA, p.head); err != nil || c.BehindBy > 0 {
		return fmt.Sprintf("state cannot be changed. The %s branch was force-pushed or recreated.", p.head)
	}
	if s.openPullFor(r, p.head, p.base) != nil {
		return fmt.Sprintf("A pull request already exists for %s:%s.", r.owner, p.head)
	}
	return ""
}

// isMerged is GitHub's "check if merged": 204 or 404.
func (s *Server) isMerged(w http.ResponseWriter, req *http.Request) {
	if _, p := s.lockPull(w, req, nil); p != nil {
		defer s.mu.Unlock()
		if !p.merged {
			notFound(w, req)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) mergePull(w http.ResponseWriter, req *http.Request) {
	var in struct {
		CommitTitle   *string `json:"commit_title"`
		CommitMessage *string `json:"commit_message"`
		SHA           string  `json:"sha"`
		MergeMethod   string  `json:"merge_method"`
	}
	r, p := s.lockPull(w, req, &in)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	method := in.MergeMethod
	if method == "" {
		method = "merge"
	}
	if method != "merge" && method != "squash" && method != "rebase" {
		writeInvalid(w, fieldError{Resource: "PullRequest", Field: "merge_method", Code: "invalid"})
		return
	}
	s.sync(r, p, true)
	switch {
	case p.state != "open" || p.cmp == nil || !p.cmp.Mergeable:
		writeError(w, http.StatusMethodNotAllowed, "Pull Request is not mergeable")
		return
	case p.draft:
		writeError(w, http.StatusMethodNotAllowed, "Pull Request is still a draft")
		return
	case in.SHA != "" && in.SHA != p.headSHA:
		writeError(w, http.StatusConflict, "Head branch was modified. Review and try the merge again.")
		return
	case r.requiredCheck != "" && p.base == r.defaultBranch:
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("Required status check %q is expected.", r.requiredCheck))
		return
	}
	title, msg := defaultCommit(r, p, method)
	if in.CommitTitle != nil {
		title = *in.CommitTitle
	}
	if in.CommitMessage != nil {
		msg = *in.CommitMessage
	}
	err := s.land(r, p, method, title, msg, actorOf(req).login)
	switch {
	case errors.Is(err, ErrMergeConflict):
		writeError(w, http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]any{"sha": p.mergeCommitSHA, "merged": true, "message": "Pull Request successfully merged"})
	}
}

func (s *Server) requestReviewers(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	r, p := s.lockPull(w, req, &in)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	if slices.ContainsFunc(in.Reviewers, func(u string) bool { return strings.EqualFold(u, botLogin) }) {
		writeInvalid(w, custom("Review cannot be requested from pull request author."))
		return
	}
	p.reviewers = addFold(p.reviewers, in.Reviewers...)
	p.teams = addFold(p.teams, in.TeamReviewers...)
	p.updated = s.now()
	s.sync(r, p, true)
	writeJSON(w, http.StatusCreated, s.fullPullJSON(r, p))
}

// GitHub's limits on a pull request's title and on a description or
// comment, in characters.
const (
	maxTitle = 256
	maxBody  = 65536
)

// tooLong is GitHub's verdict on a title and body above its limits, in
// its words.
func tooLong(resource, title, body string) []fieldError {
	var errs []fieldError
	if utf8.RuneCountInString(title) > maxTitle {
		errs = append(errs, fieldError{Resource: resource, Field: "title", Code: "custom", Message: fmt.Sprintf("title is too long (maximum is %d characters)", maxTitle)})
	}
	if utf8.RuneCountInString(body) > maxBody {
		errs = append(errs, fieldError{Resource: resource, Field: "body", Code: "custom", Message: fmt.Sprintf("body is too long (maximum is %d characters)", maxBody)})
	}
	return errs
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// addFold appends the names not yet present, ignoring case as GitHub does
// for logins, team slugs and label names.
func addFold(list []string, names ...string) []string {
	for _, n := range names {
		if !slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, n) }) {
			list = append(list, n)
		}
	}
	return list
}
