package giteatest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

type repo struct {
	id            int64
	owner, name   string
	defaultBranch string
	git           forgetest.GitBackend
	cloneURL      string
	issuesOff     bool
	mergeStyle    string
	issues        []*issue // issues and pull requests, in index order
	labels        []*gitea.Label
	statuses      map[string][]*gitea.Status // by commit SHA, oldest first
}

// issue is an issue, or a pull request when pull is set: Gitea keeps both
// as issues, one numbering.
type issue struct {
	index            int64
	author           string
	title, body      string
	closed           bool
	labels           []int64
	created, updated time.Time
	comments         []*gitea.Comment
	pull             *pull
}

// forkIDs is added to a repository's ID to make its forks'.
const forkIDs = 100000

type pull struct {
	head, base     string
	fork           string // the owner of the fork the head is in; "" for the repository's own
	headSHA        string // frozen once closed
	merged         bool
	mergedAt       time.Time
	autoMerge      string // scheduled merge style; "" for none
	reviewers      []string
	teams          []string
	mergeCommitSHA string
}

// RepoOption configures AddRepo.
type RepoOption func(*repo)

// WithCloneURL sets the repository's clone_url (gittest's URL).
func WithCloneURL(u string) RepoOption { return func(r *repo) { r.cloneURL = u } }

// WithIssuesDisabled turns the repository's issues off: type=issues
// listings are empty, creating one is a 404, as Gitea's are.
func WithIssuesDisabled() RepoOption { return func(r *repo) { r.issuesOff = true } }

// AddRepo adds a repository whose branches git holds.
func (s *Server) AddRepo(owner, name, defaultBranch string, git forgetest.GitBackend, opts ...RepoOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &repo{id: s.id(), owner: owner, name: name, defaultBranch: defaultBranch, git: git, mergeStyle: "merge",
		statuses: map[string][]*gitea.Status{}}
	for _, o := range opts {
		o(r)
	}
	s.repos[key(owner, name)] = r
}

func key(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// PR is a snapshot of a pull request for assertions.
type PR struct {
	Number                   int
	Author                   string
	Title, Body, Head, Base  string
	HeadRepo                 string // a fork's "owner/name"; "" for the repository's own
	State                    string // "open" or "closed"
	Merged, Draft, AutoMerge bool
	Labels, Reviewers        []string
	TeamReviewers, Comments  []string
	HeadSHA                  string
}

// Issue is a snapshot of an issue (not a pull request).
type Issue struct {
	Number        int
	Author, Title string
	Body, State   string
	Labels        []string
}

// PRs are the repository's pull requests, in number order.
func (s *Server) PRs(owner, name string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[key(owner, name)]
	if r == nil {
		return nil
	}
	var out []PR
	for _, is := range r.issues {
		if is.pull == nil {
			continue
		}
		p := is.pull
		s.sync(r, is)
		pr := PR{Number: int(is.index), Author: is.author, Title: is.title, Body: is.body, Head: p.head, Base: p.base,
			State: state(is), Merged: p.merged, Draft: isDraft(is.title), AutoMerge: p.autoMerge != "",
			Labels: r.labelNames(is.labels), Reviewers: slices.Clone(p.reviewers), TeamReviewers: slices.Clone(p.teams), HeadSHA: p.headSHA}
		if p.fork != "" {
			pr.HeadRepo = p.fork + "/" + r.name
		}
		for _, c := range is.comments {
			pr.Comments = append(pr.Comments, c.Body)
		}
		out = append(out, pr)
	}
	return out
}

// Issues are the repository's issues, not pull requests.
func (s *Server) Issues(owner, name string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[key(owner, name)]
	if r == nil {
		return nil
	}
	var out []Issue
	for _, is := range r.issues {
		if is.pull == nil {
			out = append(out, Issue{Number: int(is.index), Author: is.author, Title: is.title, Body: is.body, State: state(is), Labels: r.labelNames(is.labels)})
		}
	}
	return out
}

// OpenIssue opens an issue as login.
func (s *Server) OpenIssue(owner, name, login, title, body string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[key(owner, name)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, name)
	}
	is := s.newIssue(r, login, title, body)
	return int(is.index), nil
}

// EditIssue changes an issue's title ("" leaves it) and body (nil
// leaves it), as a person does.
func (s *Server) EditIssue(owner, name string, n int, title string, body *string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is, err := s.find(owner, name, n)
	if err != nil {
		return err
	}
	if title != "" {
		is.title = title
	}
	if body != nil {
		is.body = *body
	}
	is.updated = s.now()
	return nil
}

// OpenPR opens a pull request as login from head into base (""
// the default branch), as a person does: from the repository's own
// branch, or, fromFork, from the branch of that name in login's fork,
// which is listed with the fork as its head's repository, as Gitea lists
// it.
func (s *Server) OpenPR(owner, name, login, head, base, title, body string, fromFork bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[key(owner, name)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, name)
	}
	if base == "" {
		base = r.defaultBranch
	}
	p := &pull{head: head, base: base}
	if fromFork {
		p.fork = login
	} else {
		sha, ok := r.git.BranchSHA(r.owner, r.name, head)
		if !ok {
			return 0, fmt.Errorf("no branch %s", head)
		}
		p.headSHA = sha
	}
	is := s.newIssue(r, login, title, body)
	is.pull = p
	return int(is.index), nil
}

// ClosePR closes a pull request without merging, as a person declines it.
func (s *Server) ClosePR(owner, name string, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, is, err := s.find(owner, name, n)
	if err != nil || is.pull == nil {
		return cmpErr(err, fmt.Errorf("#%d is no pull request", n))
	}
	s.sync(r, is)
	is.closed, is.updated = true, s.now()
	return nil
}

// MergePR merges a pull request with a merge commit, as a person does.
func (s *Server) MergePR(owner, name string, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, is, err := s.find(owner, name, n)
	if err != nil || is.pull == nil {
		return cmpErr(err, fmt.Errorf("#%d is no pull request", n))
	}
	return s.land(r, is, "merge")
}

func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (s *Server) find(owner, name string, n int) (*repo, *issue, error) {
	r := s.repos[key(owner, name)]
	if r == nil {
		return nil, nil, fmt.Errorf("no repository %s/%s", owner, name)
	}
	for _, is := range r.issues {
		if is.index == int64(n) {
			return r, is, nil
		}
	}
	return r, nil, fmt.Errorf("no #%d in %s/%s", n, owner, name)
}

func (s *Server) newIssue(r *repo, login, title, body string) *issue {
	now := s.now()
	is := &issue{index: int64(len(r.issues) + 1), author: login, title: title, body: body, created: now, updated: now}
	r.issues = append(r.issues, is)
	return is
}

// sync reads an open pull request's head from git; a closed one keeps
// the commit it was closed at.
func (s *Server) sync(r *repo, is *issue) {
	if is.closed || is.pull == nil || is.pull.fork != "" {
		return
	}
	if sha, ok := r.git.BranchSHA(r.owner, r.name, is.pull.head); ok {
		is.pull.headSHA = sha
	}
}

// land merges a pull request with style; the caller holds s.mu.
func (s *Server) land(r *repo, is *issue, style string) error {
	s.sync(r, is)
	method := style
	switch style {
	case "merge", "squash":
	case "rebase", "rebase-merge", "fast-forward-only":
		method = "rebase"
	default:
		return fmt.Errorf("merge style %q", style)
	}
	sha, err := r.git.Merge(r.owner, r.name, forgetest.MergeRequest{Base: is.pull.base, Head: is.pull.head, Method: method,
		Title: fmt.Sprintf("Merge pull request '%s' (#%d)", is.title, is.index), When: s.clock()})
	if err != nil {
		return err
	}
	now := s.now()
	is.pull.merged, is.pull.mergedAt, is.pull.mergeCommitSHA = true, now, sha
	is.pull.autoMerge = ""
	is.closed, is.updated = true, now
	return nil
}

func state(is *issue) string {
	if is.closed {
		return "closed"
	}
	return "open"
}

// isDraft is Gitea's IsWorkInProgress with the default prefixes.
func isDraft(title string) bool {
	t := strings.ToUpper(title)
	return strings.HasPrefix(t, "WIP:") || strings.HasPrefix(t, "[WIP]")
}

func (r *repo) labelNames(ids []int64) []string {
	var out []string
	for _, id := range ids {
		for _, l := range r.labels {
			if l.ID == id {
				out = append(out, l.Name)
			}
		}
	}
	return out
}

func (r *repo) apiLabels(ids []int64) []*gitea.Label {
	out := []*gitea.Label{}
	for _, id := range ids {
		for _, l := range r.labels {
			if l.ID == id {
				out = append(out, l)
			}
		}
	}
	return out
}

type ctxKey struct{}

func contextWith(r *http.Request, login string) context.Context {
	return context.WithValue(r.Context(), ctxKey{}, login)
}

func actor(r *http.Request) string { s, _ := r.Context().Value(ctxKey{}).(string); return s }

// lookup is the request's repository and its lock, or a 404 written.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*repo, func()) {
	s.mu.Lock()
	rp := s.repos[key(r.PathValue("owner"), r.PathValue("repo"))]
	if rp == nil {
		s.mu.Unlock()
		notFound(w)
		return nil, nil
	}
	return rp, s.mu.Unlock
}

// indexed is the issue or pull request the path names, or a 404 written.
func (rp *repo) indexed(w http.ResponseWriter, r *http.Request, wantPull bool) *issue {
	n, err := strconv.ParseInt(r.PathValue("index"), 10, 64)
	if err == nil && n >= 1 && n <= int64(len(rp.issues)) {
		if is := rp.issues[n-1]; !wantPull || is.pull != nil {
			return is
		}
	}
	notFound(w)
	return nil
}
