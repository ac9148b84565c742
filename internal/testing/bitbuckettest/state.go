package bitbuckettest

import (
	"fmt"
	"net/http"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
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

	git      forgetest.GitBackend // nil: no git modelled
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
	HeadSHA     string // the source branch's tip, with WithGit
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

// WithGit models the repository's branches with git: a pull request's
// source and destination must exist, MergePR merges, and a branch deleted
// through the API is deleted (forgetest.BareRepos over gittest's
// repositories, so that the commits pushed over git are the ones the fake
// reasons about).
func WithGit(git forgetest.GitBackend) RepoOption { return func(r *Repo) { r.git = git } }

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

// MergePR merges pull request id as a person would: with WithGit, a merge
// commit of its source on its destination (a conflict is an error and
// leaves it open).
func (s *Server) MergePR(repository string, id int) error {
	s.mu.Lock()
	r := s.repos[repository]
	pr := r.prs[id-1]
	s.mu.Unlock()
	if pr.State != "OPEN" {
		return fmt.Errorf("#%d is %s", id, pr.State)
	}
	if r.git != nil {
		_, err := r.git.Merge(r.Workspace, r.Slug, forgetest.MergeRequest{Base: pr.Destination, Head: pr.Source,
			Method: "merge", Title: fmt.Sprintf("Merged in %s (pull request #%d)", pr.Source, id), When: s.clock()})
		if err != nil {
			return err
		}
	}
	s.setState(repository, id, "MERGED")
	return nil
}

// DescribePR sets pull request id's description, as its author editing
// it would.
func (s *Server) DescribePR(repository string, id int, desc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repository].prs[id-1].Description = desc
}

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
	r := s.repos[repository]
	for _, pr := range r.prs {
		c := *pr
		if r.git != nil {
			c.HeadSHA, _ = r.git.BranchSHA(r.Workspace, r.Slug, pr.Source)
		}
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

// OpenIssue opens an issue as reporter (an account ID), as a person would.
func (s *Server) OpenIssue(repository, reporter, title, body string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repository]
	r.issues = append(r.issues, &Issue{ID: len(r.issues) + 1, Title: title, Raw: body, Reporter: reporter, Created: s.clock()})
	return len(r.issues)
}

// EditIssue changes issue id's title ("" leaves it) and content (nil
// leaves it), as a person ticking a dashboard's box does.
func (s *Server) EditIssue(repository string, id int, title string, body *string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repository]
	if id < 1 || id > len(r.issues) {
		return fmt.Errorf("no issue #%d in %s", id, repository)
	}
	if title != "" {
		r.issues[id-1].Title = title
	}
	if body != nil {
		r.issues[id-1].Raw = *body
	}
	return nil
}
