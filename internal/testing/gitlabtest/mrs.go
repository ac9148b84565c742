package gitlabtest

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// mr is a merge request.
type mr struct {
	id, iid       int64
	title, desc   string
	source        string
	target        string
	state         string // opened, closed, merged
	author        *user
	labels        []string
	reviewers     []int64
	autoMerge     bool
	checks        int    // 405s left to a merge
	sha           string // frozen once closed or merged
	mergeSHA      string
	created, upd  time.Time
	notes         []*note
	fromOtherProj bool
}

type note struct {
	id     int64
	body   string
	author *user
	system bool
	at     time.Time
}

// MR is a merge request as tests check it.
type MR struct {
	IID                int
	Author             string
	Title, Description string
	Source, Target     string
	State              string // "opened", "closed" or "merged"
	Draft, AutoMerge   bool
	Labels, Reviewers  []string
	Notes              []string // the notes people and bots wrote, not GitLab's system notes
	SHA                string
	FromFork           bool
}

// draftRE: the title prefixes GitLab reads as draft.
func isDraft(title string) bool {
	t := strings.ToLower(title)
	return strings.HasPrefix(t, "draft:") || strings.HasPrefix(t, "[draft]") || strings.HasPrefix(t, "(draft)")
}

// head is the commit an MR is at: its source branch's while open.
func (p *project) head(m *mr) string {
	if m.state != "opened" {
		return m.sha
	}
	ns, name := splitPath(p.path)
	if sha, ok := p.git.BranchSHA(ns, name, m.source); ok {
		m.sha = sha
	}
	return m.sha
}

func (s *Server) mrJSON(p *project, m *mr) map[string]any {
	reviewers := []userJSON{}
	for _, id := range m.reviewers {
		if u := s.userByID(id); u != nil {
			reviewers = append(reviewers, toUser(u))
		}
	}
	source := p.id
	if m.fromOtherProj {
		source = p.id + 1000
	}
	status := "mergeable"
	if m.checks > 0 {
		status = "checking"
	}
	out := map[string]any{
		"id": m.id, "iid": m.iid, "project_id": p.id, "title": m.title, "description": m.desc,
		"state": m.state, "source_branch": m.source, "target_branch": m.target,
		"source_project_id": source, "target_project_id": p.id,
		"author": toUser(m.author), "labels": append([]string{}, m.labels...), "reviewers": reviewers,
		"draft": isDraft(m.title), "work_in_progress": isDraft(m.title),
		"merge_when_pipeline_succeeds": m.autoMerge, "detailed_merge_status": status,
		"sha": p.head(m), "merge_commit_sha": nilIfEmpty(m.mergeSHA),
		"web_url":    fmt.Sprintf("%s/-/merge_requests/%d", s.webURL(p), m.iid),
		"created_at": m.created, "updated_at": m.upd,
	}
	return out
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listMRs filters as GitLab does, by state, source_branch,
// target_branch and author (author_username, case-insensitive as GitLab
// matches usernames; author_id), newest first unless sort=asc, and pages.
// Merge requests from forks are listed too, each with its own
// source_project_id, as GitLab lists them.
func (s *Server) listMRs(c *ctx) {
	q := c.r.URL.Query()
	state, source, target := q.Get("state"), q.Get("source_branch"), q.Get("target_branch")
	author, authorID := q.Get("author_username"), q.Get("author_id")
	list := slices.Clone(c.p.mrs)
	if q.Get("sort") != "asc" { // GitLab's default: newest first
		slices.Reverse(list)
	}
	// created_after is inclusive, as GitLab's (created_at >= it).
	after, _ := time.Parse(time.RFC3339, q.Get("created_after"))
	var kept []*mr
	for _, m := range list {
		if (state == "" || state == "all" || state == m.state) && (source == "" || source == m.source) &&
			(target == "" || target == m.target) && (author == "" || strings.EqualFold(author, m.author.username)) &&
			(authorID == "" || authorID == strconv.FormatInt(m.author.id, 10)) && !m.created.Before(after) {
			kept = append(kept, m)
		}
	}
	// Only the page asked for is encoded: thousands of merge requests
	// with long descriptions cost a page's work, as on GitLab.
	lo, hi := pageBounds(c, len(kept))
	out := []map[string]any{}
	for _, m := range kept[lo:hi] {
		out = append(out, s.mrJSON(c.p, m))
	}
	c.json(http.StatusOK, out)
}

// mrOf is the route's merge request, or a 404 answered.
func (c *ctx) mrOf() *mr {
	n, _ := strconv.ParseInt(c.r.PathValue("iid"), 10, 64)
	for _, m := range c.p.mrs {
		if m.iid == n {
			return m
		}
	}
	c.message(http.StatusNotFound, "404 Not found")
	return nil
}

func (s *Server) getMR(c *ctx) {
	if m := c.mrOf(); m != nil {
		c.json(http.StatusOK, s.mrJSON(c.p, m))
	}
}

// createMR is POST /merge_requests, with GitLab's refusals.
func (s *Server) createMR(c *ctx) {
	var in struct {
		Title        *string   `json:"title"`
		Description  string    `json:"description"`
		SourceBranch *string   `json:"source_branch"`
		TargetBranch *string   `json:"target_branch"`
		Labels       labelList `json:"labels"`
		ReviewerIDs  []int64   `json:"reviewer_ids"`
	}
	if !c.decode(&in) {
		return
	}
	// GitLab checks the role before the parameters.
	if c.u.level < Developer {
		c.message(http.StatusForbidden, "403 Forbidden")
		return
	}
	for _, req := range []struct {
		name string
		v    *string
	}{{"source_branch", in.SourceBranch}, {"target_branch", in.TargetBranch}, {"title", in.Title}} {
		if req.v == nil || *req.v == "" {
			c.json(http.StatusBadRequest, map[string]string{"error": req.name + " is missing"})
			return
		}
	}
	if *in.SourceBranch == *in.TargetBranch {
		c.message(http.StatusUnprocessableEntity, []string{"You can't use same project/branch for source and target"})
		return
	}
	ns, name := splitPath(c.p.path)
	if _, ok := c.p.git.BranchSHA(ns, name, *in.SourceBranch); !ok {
		c.message(http.StatusBadRequest, map[string][]string{"source_branch": {"is invalid"}})
		return
	}
	if _, ok := c.p.git.BranchSHA(ns, name, *in.TargetBranch); !ok {
		c.message(http.StatusBadRequest, map[string][]string{"target_branch": {"is invalid"}})
		return
	}
	for _, m := range c.p.mrs {
		// GitLab allows one open merge request per source and target
		// branch of the same projects.
		if m.state == "opened" && m.source == *in.SourceBranch && m.target == *in.TargetBranch && !m.fromOtherProj {
			c.message(http.StatusConflict, []string{fmt.Sprintf("Another open merge request already exists for this source branch: !%d", m.iid)})
			return
		}
	}
	if !c.write(Developer) {
		return
	}
	s.nextID++
	now := s.now()
	m := &mr{id: s.nextID, iid: s.nextIID(c.p), title: *in.Title, desc: in.Description, source: *in.SourceBranch, target: *in.TargetBranch,
		state: "opened", author: c.u, labels: in.Labels, reviewers: in.ReviewerIDs, checks: s.mergeChecks, created: now, upd: now}
	c.p.mrs = append(c.p.mrs, m)
	c.json(http.StatusCreated, s.mrJSON(c.p, m))
}

// nextIID numbers merge requests per project, as issues are numbered
// apart.
func (s *Server) nextIID(p *project) int64 { return int64(len(p.mrs) + 1) }

// updateMR is PUT /merge_requests/:iid: title, description, labels,
// add_labels, reviewer_ids, state_event close or reopen.
func (s *Server) updateMR(c *ctx) {
	m := c.mrOf()
	if m == nil {
		return
	}
	var in struct {
		Title       *string    `json:"title"`
		Description *string    `json:"description"`
		Labels      *labelList `json:"labels"`
		AddLabels   labelList  `json:"add_labels"`
		ReviewerIDs *[]int64   `json:"reviewer_ids"`
		StateEvent  string     `json:"state_event"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Title != nil && *in.Title == "" {
		c.message(http.StatusBadRequest, map[string][]string{"title": {"can't be blank"}})
		return
	}
	if !c.write(Developer) {
		return
	}
	if in.Title != nil {
		m.title = *in.Title
	}
	if in.Description != nil {
		m.desc = *in.Description
	}
	if in.Labels != nil {
		m.labels = *in.Labels
	}
	for _, l := range in.AddLabels {
		if !slices.Contains(m.labels, l) {
			m.labels = append(m.labels, l)
		}
	}
	if in.ReviewerIDs != nil {
		m.reviewers = *in.ReviewerIDs
	}
	switch in.StateEvent {
	case "close":
		if m.state == "opened" {
			c.p.head(m)
			m.state = "closed"
			s.systemNote(m, c.u, "closed")
		}
	case "reopen":
		if m.state == "closed" {
			m.state = "opened"
			s.systemNote(m, c.u, "reopened")
		}
	}
	m.upd = s.now()
	c.json(http.StatusOK, s.mrJSON(c.p, m))
}

func (s *Server) systemNote(m *mr, u *user, body string) {
	s.nextID++
	m.notes = append(m.notes, &note{id: s.nextID, body: body, author: u, system: true, at: s.now()})
}

// acceptMR is PUT /merge_requests/:iid/merge. With auto_merge (or
// merge_when_pipeline_succeeds) it records that the MR merges when its
// pipeline succeeds; without, it merges now. While GitLab still checks a
// new MR (WithMergeChecks), either is a 405.
func (s *Server) acceptMR(c *ctx) {
	m := c.mrOf()
	if m == nil {
		return
	}
	var in struct {
		AutoMerge bool `json:"auto_merge"`
		MWPS      bool `json:"merge_when_pipeline_succeeds"`
	}
	if !c.decode(&in) {
		return
	}
	if m.state != "opened" || m.checks > 0 {
		if m.checks > 0 {
			m.checks--
		}
		c.message(http.StatusMethodNotAllowed, "405 Method Not Allowed")
		return
	}
	if c.u.level < Developer {
		c.message(http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	if in.AutoMerge || in.MWPS {
		c.s.CountWrites(1)
		m.autoMerge = true
		c.json(http.StatusOK, s.mrJSON(c.p, m))
		return
	}
	if err := s.merge(c.p, m, c.u); err != nil {
		c.message(http.StatusNotAcceptable, "Branch cannot be merged")
		return
	}
	c.s.CountWrites(1)
	c.json(http.StatusOK, s.mrJSON(c.p, m))
}

// merge lands m on its target with a merge commit, GitLab's default.
func (s *Server) merge(p *project, m *mr, by *user) error {
	ns, name := splitPath(p.path)
	p.head(m)
	sha, err := p.git.Merge(ns, name, forgetest.MergeRequest{Base: m.target, Head: m.source, Method: "merge",
		Title: fmt.Sprintf("Merge branch '%s' into '%s'", m.source, m.target), Message: m.title, When: s.now()})
	if err != nil {
		return err
	}
	m.state, m.mergeSHA, m.upd = "merged", sha, s.now()
	s.systemNote(m, by, "merged")
	return nil
}

func (s *Server) listNotes(c *ctx) {
	m := c.mrOf()
	if m == nil {
		return
	}
	out := []map[string]any{}
	for _, n := range m.notes {
		out = append(out, map[string]any{"id": n.id, "body": n.body, "author": toUser(n.author), "system": n.system,
			"noteable_type": "MergeRequest", "noteable_iid": m.iid, "created_at": n.at})
	}
	page(c, out)
}

func (s *Server) createNote(c *ctx) {
	m := c.mrOf()
	if m == nil {
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Body == "" {
		c.json(http.StatusBadRequest, map[string]string{"error": "body is missing"})
		return
	}
	if !c.write(Guest) {
		return
	}
	s.nextID++
	n := &note{id: s.nextID, body: in.Body, author: c.u, at: s.now()}
	m.notes = append(m.notes, n)
	c.json(http.StatusCreated, map[string]any{"id": n.id, "body": n.body, "author": toUser(n.author), "system": false})
}

// MRs are every merge request of the project, oldest first.
func (s *Server) MRs(path string) []MR {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return nil
	}
	var out []MR
	for _, m := range p.mrs {
		x := MR{IID: int(m.iid), Author: m.author.username, Title: m.title, Description: m.desc, Source: m.source, Target: m.target,
			State: m.state, Draft: isDraft(m.title), AutoMerge: m.autoMerge, Labels: slices.Clone(m.labels), SHA: p.head(m), FromFork: m.fromOtherProj}
		for _, id := range m.reviewers {
			if u := s.userByID(id); u != nil {
				x.Reviewers = append(x.Reviewers, u.username)
			}
		}
		for _, n := range m.notes {
			if !n.system {
				x.Notes = append(x.Notes, n.body)
			}
		}
		out = append(out, x)
	}
	return out
}

// errNoMR is a test naming a merge request that is not there.
var errNoMR = errors.New("no such merge request")

func (s *Server) findMR(path string, iid int) (*project, *mr, error) {
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return nil, nil, fmt.Errorf("no project %s", path)
	}
	for _, m := range p.mrs {
		if m.iid == int64(iid) {
			return p, m, nil
		}
	}
	return nil, nil, fmt.Errorf("!%d: %w", iid, errNoMR)
}

// person is who closes and merges in tests: a maintainer.
var person = &user{id: 7, username: "jane", scopes: []string{"api"}, level: Maintainer}

// CloseMR closes a merge request without merging, as a person declines it.
func (s *Server) CloseMR(path string, iid int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, m, err := s.findMR(path, iid)
	if err != nil {
		return err
	}
	if m.state != "opened" {
		return fmt.Errorf("!%d is %s", iid, m.state)
	}
	p.head(m)
	m.state = "closed"
	s.systemNote(m, person, "closed")
	return nil
}

// MergeMR merges a merge request into its target, as a person does.
func (s *Server) MergeMR(path string, iid int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, m, err := s.findMR(path, iid)
	if err != nil {
		return err
	}
	if m.state != "opened" {
		return fmt.Errorf("!%d is %s", iid, m.state)
	}
	return s.merge(p, m, person)
}

// OpenMR opens a merge request as login (a user added WithUser, or
// anyone), from the project's branch source or, fromFork, from a fork's
// branch of that name.
func (s *Server) OpenMR(path, login, source, target, title, desc string, fromFork bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return 0, fmt.Errorf("no project %s", path)
	}
	u := s.userByName(login)
	if u == nil {
		s.nextID++
		u = &user{id: s.nextID, username: login, level: Developer}
	}
	s.nextID++
	now := s.now()
	m := &mr{id: s.nextID, iid: s.nextIID(p), title: title, desc: desc, source: source, target: target, state: "opened",
		author: u, created: now, upd: now, fromOtherProj: fromFork}
	p.mrs = append(p.mrs, m)
	return int(m.iid), nil
}

// Age moves every merge request of the project, and its notes, d into
// the past, as if d passed: a bot run as its own process reads the
// machine's clock, which a test cannot move, so time passes for the
// project instead (pullRequests.perHour counts creation times).
func (s *Server) Age(path string, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return fmt.Errorf("no project %s", path)
	}
	for _, m := range p.mrs {
		m.created, m.upd = m.created.Add(-d), m.upd.Add(-d)
		for _, n := range m.notes {
			n.at = n.at.Add(-d)
		}
	}
	return nil
}
