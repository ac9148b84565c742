package githubtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Logins of the two actors: the bot behind the token (GitHub Actions'
// GITHUB_TOKEN acts as github-actions[bot]) and the human that ClosePR and
// MergePR stand for.
const (
	botLogin   = "github-actions[bot]"
	humanLogin = "octocat"
)

type repo struct {
	id                  int64
	owner, name         string
	defaultBranch       string
	git                 GitBackend
	cloneURL            string
	allowAutoMerge      bool
	deleteBranchOnMerge bool
	requiredCheck       string           // a status check that never reports; "" for none
	pulls               []*pull          // in number order; issues share the numbers, as on GitHub
	issues              []*issue         // in number order (tracker.go)
	issuesOff           bool             // issues disabled: the issue endpoints answer 410
	labels              map[string]int64 // lower-case name -> id, created on first use
	checks              *checkState      // commit statuses and check runs; see statuses.go
	parent              string           // repoKey of the repository this is a fork of; "" for none
}

type pull struct {
	id, number       int64
	author           string // login of whoever opened it
	title, body      string
	head, base       string // branch names; head in headRepo
	headRepo         *repo  // a fork the head branch is in; nil: the same repository
	state            string // "open" or "closed"
	draft, merged    bool
	headSHA, baseSHA string // frozen once closed, as on GitHub
	mergeCommitSHA   string
	mergedBy         string
	created, updated time.Time
	closed, mergedAt time.Time   // zero: null
	cmp              *Comparison // nil: mergeability unknown
	labels           []string
	reviewers, teams []string
	comments         []comment
	autoMerge        string // merge method; "" when auto-merge is off
	autoMergeAt      time.Time
}

type comment struct {
	id      int64
	author  string
	body    string
	created time.Time
}

// PR is a snapshot of a pull request for assertions.
type PR struct {
	Number                   int
	Author                   string // login of whoever opened it
	Title, Body, Head, Base  string
	HeadRepo                 string // "owner/name" of a fork the head branch is in; "" for the repository's own
	State                    string // "open" or "closed"
	Merged, Draft, AutoMerge bool
	Labels, Reviewers        []string
	TeamReviewers, Comments  []string
	HeadSHA                  string
}

// RepoOption configures AddRepo.
type RepoOption func(*repo)

// WithAutoMerge sets allow_auto_merge: without it enablePullRequestAutoMerge
// fails with "Auto merge is not allowed for this repository", GitHub's
// default.
func WithAutoMerge() RepoOption { return func(r *repo) { r.allowAutoMerge = true } }

// WithDeleteBranchOnMerge makes a merge delete the head branch, GitHub's
// "Automatically delete head branches" setting.
func WithDeleteBranchOnMerge() RepoOption { return func(r *repo) { r.deleteBranchOnMerge = true } }

// WithRequiredCheck protects the default branch with a required status
// check that never reports: PRs are "blocked", the REST merge is refused,
// and auto-merge can be enabled (on an unprotected branch GitHub refuses it
// for a mergeable PR: "Pull request is in clean status"). MergePR, a human
// admin, bypasses it.
func WithRequiredCheck(name string) RepoOption { return func(r *repo) { r.requiredCheck = name } }

// ForkOf makes the repository a fork of owner/name: its owner can open
// pull requests from its branches into the parent ("owner:branch" as
// head), which show head.repo as the fork, as GitHub's do.
func ForkOf(owner, name string) RepoOption { return func(r *repo) { r.parent = repoKey(owner, name) } }

// WithCloneURL sets the repository's clone_url, e.g. gittest's URL.
func WithCloneURL(u string) RepoOption { return func(r *repo) { r.cloneURL = u } }

// AddRepo makes owner/name known, with branches and merges served by git.
// Adding a repository again replaces it, pull requests included.
func (s *Server) AddRepo(owner, name, defaultBranch string, git GitBackend, opts ...RepoOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &repo{
		id: s.id(), owner: owner, name: name, defaultBranch: defaultBranch, git: git,
		cloneURL: "https://github.com/" + owner + "/" + name + ".git",
		labels:   map[string]int64{},
	}
	for _, o := range opts {
		o(r)
	}
	s.repos[repoKey(owner, name)] = r
}

// PRs returns every pull request of owner/name in number order, brought up
// to date with the branches first.
func (s *Server) PRs(owner, name string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(owner, name)]
	if r == nil {
		return nil
	}
	var out []PR
	for _, p := range r.pulls {
		s.sync(r, p, false)
		snap := PR{
			Number: int(p.number), Author: p.author, Title: p.title, Body: p.body, Head: p.head, Base: p.base, HeadRepo: p.forkName(),
			State: p.state, Merged: p.merged, Draft: p.draft, AutoMerge: p.autoMerge != "",
			Labels: slices.Clone(p.labels), Reviewers: slices.Clone(p.reviewers),
			TeamReviewers: slices.Clone(p.teams), HeadSHA: p.headSHA,
		}
		for _, c := range p.comments {
			snap.Comments = append(snap.Comments, c.body)
		}
		out = append(out, snap)
	}
	return out
}

// OpenPR opens a pull request as login from head into base ("" the
// default branch), as a person does through the web: from the
// repository's own branch, or, fromFork, from the branch of that name in
// login's fork of it (made on first use, with no branches of its own, so
// that its head stays as opened), whose head.repo is the fork, as GitHub
// lists it. Nothing is checked: it is how tests put thousands there.
func (s *Server) OpenPR(owner, name, login, head, base, title, body string, fromFork bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repoKey(owner, name)]
	if r == nil {
		return 0, fmt.Errorf("no repository %s/%s", owner, name)
	}
	if base == "" {
		base = r.defaultBranch
	}
	t := s.now()
	p := &pull{id: s.id(), number: r.nextNumber(), author: login, title: title, body: body,
		head: head, base: base, state: "open", created: t, updated: t}
	if fromFork {
		if p.headRepo = s.forkOf(r, login); p.headRepo == nil {
			p.headRepo = &repo{id: s.id(), owner: login, name: r.name, defaultBranch: r.defaultBranch, git: noBranches{},
				cloneURL: "https://github.com/" + login + "/" + r.name + ".git", labels: map[string]int64{}, parent: repoKey(owner, name)}
			s.repos[repoKey(login, r.name)] = p.headRepo
		}
	} else if sha, ok := r.git.BranchSHA(r.owner, r.name, head); ok {
		p.headSHA = sha
	} else {
		return 0, fmt.Errorf("no branch %s", head)
	}
	r.pulls = append(r.pulls, p)
	return int(p.number), nil
}

// noBranches is the git of a fork that has none.
type noBranches struct{}

func (noBranches) BranchSHA(string, string, string) (string, bool) { return "", false }
func (noBranches) Compare(string, string, string, string) (Comparison, error) {
	return Comparison{}, ErrNoBranch
}
func (noBranches) Merge(string, string, MergeRequest) (string, error) { return "", ErrNoBranch }
func (noBranches) DeleteBranch(string, string, string) error          { return ErrNoBranch }

// ClosePR closes a pull request without merging it, as a human who rejects
// the update would.
func (s *Server) ClosePR(owner, name string, number int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p, err := s.find(owner, name, number)
	if err != nil {
		return err
	}
	if p.state != "open" {
		return fmt.Errorf("close %s/%s#%d: already closed", owner, name, number)
	}
	s.closePull(p)
	return nil
}

// MergePR merges a pull request as a human admin would from the web UI:
// with the method chosen for auto-merge, else a merge commit, bypassing
// required checks. Base moves in the git backend.
func (s *Server) MergePR(owner, name string, number int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, p, err := s.find(owner, name, number)
	if err != nil {
		return err
	}
	method := p.autoMerge
	if method == "" {
		method = "merge"
	}
	title, msg := defaultCommit(r, p, method)
	if err := s.land(r, p, method, title, msg, humanLogin); err != nil {
		return fmt.Errorf("merge %s/%s#%d: %w", owner, name, number, err)
	}
	return nil
}

var errClosed = errors.New("pull request is closed")

// find resolves a pull request for the methods tests call, and brings it
// up to date with its branches as a person's page load would; the caller
// holds s.mu.
func (s *Server) find(owner, name string, number int) (*repo, *pull, error) {
	r, err := s.named(owner, name)
	if err != nil {
		return nil, nil, err
	}
	p := r.pull(number)
	if p == nil {
		return nil, nil, fmt.Errorf("%s/%s#%d: no such pull request", owner, name, number)
	}
	s.sync(r, p, false)
	return r, p, nil
}

// named is the repository owner/name, for the methods tests call; the
// caller holds s.mu.
func (s *Server) named(owner, name string) (*repo, error) {
	r := s.repos[repoKey(owner, name)]
	if r == nil {
		return nil, fmt.Errorf("%s/%s: no such repository", owner, name)
	}
	return r, nil
}

// repoKey keys the repositories: GitHub's owner and repository names are
// case-insensitive.
func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// sync brings an open PR up to date with its branches, as GitHub does on
// every push: the head SHA follows the branch, deleting the head branch
// closes the PR, and (when full) mergeability is recomputed. Closed PRs
// keep the SHAs they had.
func (s *Server) sync(r *repo, p *pull, full bool) {
	if p.state != "open" {
		return
	}
	if h := p.headRepo; h != nil {
		// A fork's objects are not in this repository: its head follows
		// the fork's branch, and mergeability stays unknown.
		if sha, ok := h.git.BranchSHA(h.owner, h.name, p.head); ok && sha != p.headSHA {
			p.headSHA, p.updated = sha, s.now()
		}
		return
	}
	sha, ok := r.git.BranchSHA(r.owner, r.name, p.head)
	if !ok {
		s.closePull(p)
		return
	}
	if sha != p.headSHA {
		p.headSHA, p.updated = sha, s.now()
	}
	if sha, ok := r.git.BranchSHA(r.owner, r.name, p.base); ok {
		p.baseSHA = sha
	}
	if !full {
		return
	}
	p.cmp = nil
	if c, err := r.git.Compare(r.owner, r.name, p.base, p.head); err == nil {
		p.cmp = &c
	}
}

func (s *Server) closePull(p *pull) {
	t := s.now()
	p.state, p.closed, p.updated = "closed", t, t
	p.autoMerge, p.cmp = "", nil
}

// land merges p through the git backend and records it as GitHub does.
func (s *Server) land(r *repo, p *pull, method, title, msg, by string) error {
	if p.state != "open" {
		return errClosed
	}
	if p.headRepo != nil {
		return errors.New("merging a fork's pull request is not modelled")
	}
	sha, err := r.git.Merge(r.owner, r.name, MergeRequest{Base: p.base, Head: p.head, Method: method, Title: title, Message: msg, When: s.now()})
	if err != nil {
		return err
	}
	s.closePull(p)
	p.merged, p.mergedAt, p.mergedBy, p.mergeCommitSHA = true, p.closed, by, sha
	if r.deleteBranchOnMerge {
		// Best effort, as on GitHub: a merged PR stays merged whatever
		// happens to its branch.
		r.git.DeleteBranch(r.owner, r.name, p.head)
	}
	return nil
}

// defaultCommit is the commit title and message GitHub proposes.
func defaultCommit(r *repo, p *pull, method string) (title, msg string) {
	if method == "squash" || method == "rebase" {
		return fmt.Sprintf("%s (#%d)", p.title, p.number), p.body
	}
	return fmt.Sprintf("Merge pull request #%d from %s/%s", p.number, r.owner, p.head), p.title
}

// openPullFor finds the open PR from head into base, GitHub's uniqueness
// rule for pull requests.
func (s *Server) openPullFor(r *repo, head, base string) *pull {
	for _, p := range r.pulls {
		if p.head != head || p.base != base || p.headRepo != nil {
			continue // only a PR of this branch can be its open one
		}
		s.sync(r, p, false)
		if p.state == "open" {
			return p
		}
	}
	return nil
}

// forkName is "owner/name" of the fork p's head branch is in, or "".
func (p *pull) forkName() string {
	if h := p.headRepo; h != nil {
		return h.owner + "/" + h.name
	}
	return ""
}

// forkOf finds owner's fork of r; the caller holds s.mu.
func (s *Server) forkOf(r *repo, owner string) *repo {
	for _, f := range s.repos {
		if f.parent == repoKey(r.owner, r.name) && strings.EqualFold(f.owner, owner) {
			return f
		}
	}
	return nil
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// now is second-precision UTC, the resolution of GitHub's timestamps.
func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }
