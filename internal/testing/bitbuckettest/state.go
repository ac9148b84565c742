package bitbuckettest

import (
	"fmt"
	"net/http"
	"time"
)

// Repo is a repository the fake serves.
type Repo struct {
	Workspace, Slug string
	MainBranch      string
	HasIssues       bool
	// DefaultReviewers are account IDs added by the repository's
	// settings, which effective-default-reviewers lists.
	DefaultReviewers []string
	// DeletedBranches are the branches deleted through the API.
	DeletedBranches []string

	prs      []*PR
	issues   []*Issue
	statuses map[string][]Status // by commit
}

// PR is a pull request as the fake keeps it.
type PR struct {
	ID          int
	Title       string
	Description string
	State       string // OPEN, MERGED, DECLINED, SUPERSEDED
	Draft       bool
	Author      string // account ID
	Source      string
	SourceRepo  string // "ws/slug": a fork's when not the repository's
	Destination string
	Reviewers   []string // account IDs or UUIDs
	Comments    []Comment
	Created     time.Time
}

// Comment is a pull request's comment.
type Comment struct {
	ID     int
	Author string
	Raw    string
}

// Issue is an issue of the repository's tracker.
type Issue struct {
	ID       int
	Title    string
	Raw      string
	Reporter string
	Created  time.Time
}

// Status is a commit's build status.
type Status struct {
	Key, State, Name string
}

// RepoOption configures AddRepo.
type RepoOption func(*Repo)

// WithIssuesOff turns the repository's issue tracker off, Bitbucket's
// default for a new repository.
func WithIssuesOff() RepoOption { return func(r *Repo) { r.HasIssues = false } }

// WithDefaultReviewers sets the repository's default reviewers.
func WithDefaultReviewers(accountIDs ...string) RepoOption {
	return func(r *Repo) { r.DefaultReviewers = accountIDs }
}

// AddRepo serves workspace/slug with main as its main branch and the
// issue tracker on.
func (s *Server) AddRepo(workspace, slug, main string, opts ...RepoOption) *Repo {
	r := &Repo{Workspace: workspace, Slug: slug, MainBranch: main, HasIssues: true, statuses: map[string][]Status{}}
	for _, o := range opts {
		o(r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[workspace+"/"+slug] = r
	return r
}

func (s *Server) repo(w http.ResponseWriter, r *http.Request) *Repo {
	rp := s.repos[r.PathValue("ws")+"/"+r.PathValue("repo")]
	if rp == nil {
		fail(w, http.StatusNotFound, fmt.Sprintf("Repository %s/%s not found", r.PathValue("ws"), r.PathValue("repo")))
	}
	return rp
}

// OpenPR opens a pull request as author (an account ID), from fork when
// it is not "" (a fork's "ws/slug"), as a person would.
func (s *Server) OpenPR(repository, source, destination, title, author, fork string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repository]
	src := repository
	if fork != "" {
		src = fork
	}
	pr := &PR{ID: len(r.prs) + 1, Title: title, State: "OPEN", Author: author, Source: source, SourceRepo: src,
		Destination: destination, Created: s.clock()}
	r.prs = append(r.prs, pr)
	return pr.ID
}

// DeclinePR declines pull request id as a person would.
func (s *Server) DeclinePR(repository string, id int) { s.setState(repository, id, "DECLINED") }

// MergePR marks pull request id merged (no git is modelled).
func (s *Server) MergePR(repository string, id int) { s.setState(repository, id, "MERGED") }

func (s *Server) setState(repository string, id int, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repository].prs[id-1].State = state
}

// AddStatus reports a build status on commit, replacing the one with the
// same key, as Bitbucket does.
func (s *Server) AddStatus(repository, commit string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repository].addStatus(commit, st)
}

func (r *Repo) addStatus(commit string, st Status) {
	for i, old := range r.statuses[commit] {
		if old.Key == st.Key {
			r.statuses[commit][i] = st
			return
		}
	}
	r.statuses[commit] = append(r.statuses[commit], st)
}

// PRs is a copy of the repository's pull requests, by ID.
func (s *Server) PRs(repository string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PR
	for _, pr := range s.repos[repository].prs {
		c := *pr
		c.Reviewers = append([]string(nil), pr.Reviewers...)
		c.Comments = append([]Comment(nil), pr.Comments...)
		out = append(out, c)
	}
	return out
}

// Issues is a copy of the repository's issues, by ID.
func (s *Server) Issues(repository string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, is := range s.repos[repository].issues {
		out = append(out, *is)
	}
	return out
}

// DeletedBranches are the branches deleted through the API.
func (s *Server) DeletedBranches(repository string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.repos[repository].DeletedBranches...)
}
