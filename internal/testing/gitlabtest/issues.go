package gitlabtest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

type issue struct {
	iid         int64
	title, desc string
	author      *user
	state       string // opened, closed
	labels      []string
	created     time.Time
}

// Issue is an issue as tests check it.
type Issue struct {
	IID           int
	Author, Title string
	Description   string
	State         string
	Labels        []string
}

func (s *Server) issueJSON(p *project, is *issue) map[string]any {
	return map[string]any{"id": is.iid + 5000, "iid": is.iid, "project_id": p.id, "title": is.title, "description": is.desc,
		"state": is.state, "author": toUser(is.author), "labels": append([]string{}, is.labels...),
		"web_url": fmt.Sprintf("%s/-/issues/%d", s.webURL(p), is.iid), "created_at": is.created}
}

// issuesOn answers GitLab's 403 for a project with issues turned off.
func (c *ctx) issuesOn() bool {
	if c.p.issuesOff {
		c.message(http.StatusForbidden, "403 Forbidden")
		return false
	}
	return true
}

func (s *Server) listIssues(c *ctx) {
	if !c.issuesOn() {
		return
	}
	q := c.r.URL.Query()
	list := slices.Clone(c.p.issues)
	if q.Get("sort") != "asc" {
		slices.Reverse(list)
	}
	out := []map[string]any{}
	for _, is := range list {
		if a := q.Get("author_username"); a != "" && !strings.EqualFold(a, is.author.username) {
			continue
		}
		if st := q.Get("state"); st != "" && st != "all" && st != is.state {
			continue
		}
		out = append(out, s.issueJSON(c.p, is))
	}
	page(c, out)
}

func (s *Server) createIssue(c *ctx) {
	if !c.issuesOn() {
		return
	}
	var in struct {
		Title       string    `json:"title"`
		Description string    `json:"description"`
		Labels      labelList `json:"labels"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Title == "" {
		c.json(http.StatusBadRequest, map[string]string{"error": "title is missing"})
		return
	}
	if !c.descriptionFits(in.Description) {
		return
	}
	if !c.write(Guest) {
		return
	}
	is := &issue{iid: int64(len(c.p.issues) + 1), title: in.Title, desc: in.Description, author: c.u, state: "opened", labels: in.Labels, created: s.now()}
	c.p.issues = append(c.p.issues, is)
	c.json(http.StatusCreated, s.issueJSON(c.p, is))
}

func (s *Server) updateIssue(c *ctx) {
	if !c.issuesOn() {
		return
	}
	n, _ := strconv.Atoi(c.r.PathValue("iid"))
	if n < 1 || n > len(c.p.issues) {
		c.message(http.StatusNotFound, "404 Not found")
		return
	}
	is := c.p.issues[n-1]
	var in struct {
		Title       *string `json:"title"`
		Description *string `json:"description"`
	}
	if !c.decode(&in) || in.Description != nil && !c.descriptionFits(*in.Description) {
		return
	}
	// Only its author or a Reporter and above may edit an issue.
	level := Reporter
	if is.author == c.u {
		level = Guest
	}
	if !c.write(level) {
		return
	}
	if in.Title != nil {
		is.title = *in.Title
	}
	if in.Description != nil {
		is.desc = *in.Description
	}
	c.json(http.StatusOK, s.issueJSON(c.p, is))
}

// maxDescription is GitLab's limit on an issue's description: "1
// megabyte", validated as a length in characters.
const maxDescription = 1 << 20

// descriptionFits answers 400 as GitLab does for a description over its
// limit, and reports whether it fits.
func (c *ctx) descriptionFits(d string) bool {
	if utf8.RuneCountInString(d) <= maxDescription {
		return true
	}
	c.message(http.StatusBadRequest, map[string][]string{"description": {fmt.Sprintf("is too long (maximum is %d characters)", maxDescription)}})
	return false
}

// Issues are the project's issues, oldest first.
func (s *Server) Issues(path string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return nil
	}
	var out []Issue
	for _, is := range p.issues {
		out = append(out, Issue{IID: int(is.iid), Author: is.author.username, Title: is.title, Description: is.desc, State: is.state, Labels: slices.Clone(is.labels)})
	}
	return out
}

// OpenIssue opens an issue as login.
func (s *Server) OpenIssue(path, login, title, desc string) (int, error) {
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
	is := &issue{iid: int64(len(p.issues) + 1), title: title, desc: desc, author: u, state: "opened", created: s.now()}
	p.issues = append(p.issues, is)
	return int(is.iid), nil
}

// EditIssue changes an issue's title ("" leaves it) or description (nil
// leaves it), as a person ticking a box does.
func (s *Server) EditIssue(path string, iid int, title string, desc *string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil || iid < 1 || iid > len(p.issues) {
		return fmt.Errorf("no issue #%d in %s", iid, path)
	}
	is := p.issues[iid-1]
	if title != "" {
		is.title = title
	}
	if desc != nil {
		is.desc = *desc
	}
	return nil
}

// status is a commit status: posted, or a pipeline's job.
type status struct {
	id         int64
	sha, name  string
	state      string
	pipelineID int64
}

type pipeline struct {
	id     int64
	sha    string
	status string
	jobs   []*status
}

// statusStates are the states POST /statuses/:sha takes.
var statusStates = []string{"pending", "running", "success", "failed", "canceled", "skipped"}

func (s *Server) postStatus(c *ctx) {
	var in struct {
		State   string `json:"state"`
		Name    string `json:"name"`
		Context string `json:"context"`
	}
	if !c.decode(&in) {
		return
	}
	if !slices.Contains(statusStates, in.State) {
		c.json(http.StatusBadRequest, map[string]string{"error": "state does not have a valid value"})
		return
	}
	if !c.write(Developer) {
		return
	}
	name := in.Name
	if name == "" {
		name = in.Context
	}
	if name == "" {
		name = "default"
	}
	s.nextID++
	st := &status{id: s.nextID, sha: c.r.PathValue("sha"), name: name, state: in.State}
	c.p.statuses = append(c.p.statuses, st)
	c.json(http.StatusCreated, map[string]any{"id": st.id, "sha": st.sha, "name": st.name, "status": st.state})
}

// listStatuses is a commit's statuses, posted and jobs alike: with
// all=false (the default) each name's latest only, as GitLab answers.
func (s *Server) listStatuses(c *ctx) {
	sha := c.r.PathValue("sha")
	all := c.r.URL.Query().Get("all") == "true"
	var every []*status
	every = append(every, c.p.statuses...)
	for _, pl := range c.p.pipelines {
		every = append(every, pl.jobs...)
	}
	slices.SortFunc(every, func(a, b *status) int { return int(a.id - b.id) })
	latest := map[string]int{}
	var keep []*status
	for _, st := range every {
		if st.sha != sha {
			continue
		}
		if i, ok := latest[st.name]; ok && !all {
			keep[i] = st
			continue
		}
		latest[st.name] = len(keep)
		keep = append(keep, st)
	}
	out := []map[string]any{}
	for _, st := range keep {
		out = append(out, map[string]any{"id": st.id, "sha": st.sha, "name": st.name, "status": st.state, "pipeline_id": st.pipelineID, "allow_failure": false})
	}
	page(c, out)
}

func (s *Server) listPipelines(c *ctx) {
	q := c.r.URL.Query()
	list := slices.Clone(c.p.pipelines)
	if q.Get("sort") != "asc" {
		slices.Reverse(list)
	}
	out := []map[string]any{}
	for _, pl := range list {
		if sha := q.Get("sha"); sha != "" && sha != pl.sha {
			continue
		}
		out = append(out, map[string]any{"id": pl.id, "iid": pl.id, "project_id": c.p.id, "sha": pl.sha, "status": pl.status, "source": "push"})
	}
	page(c, out)
}

// AddPipeline runs a pipeline on sha whose jobs ended as jobs says, by
// name ("success", "failed", "running", ...): its status is GitLab's
// summary of theirs.
func (s *Server) AddPipeline(path, sha string, jobs map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[strings.ToLower(path)]
	if p == nil {
		return fmt.Errorf("no project %s", path)
	}
	s.nextID++
	pl := &pipeline{id: s.nextID, sha: sha, status: "success"}
	names := make([]string, 0, len(jobs))
	for n := range jobs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s.nextID++
		st := jobs[n]
		pl.jobs = append(pl.jobs, &status{id: s.nextID, sha: sha, name: n, state: st, pipelineID: pl.id})
		switch {
		case st == "failed":
			pl.status = "failed"
		case st != "success" && pl.status == "success":
			pl.status = st
		}
	}
	p.pipelines = append(p.pipelines, pl)
	return nil
}
