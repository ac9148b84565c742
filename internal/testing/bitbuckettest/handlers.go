package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// page answers one page of items as Bitbucket's paged listings do:
// values, page, pagelen, size, and next while there is more, with the
// request's query carried on.
func (s *Server) page(w http.ResponseWriter, r *http.Request, items []any) {
	q := r.URL.Query()
	size := 10
	if v := q.Get("pagelen"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fail(w, http.StatusBadRequest, "Invalid pagelen")
			return
		}
		size = n
	}
	size = min(size, s.perPage)
	n := 1
	if v := q.Get("page"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			fail(w, http.StatusBadRequest, "Invalid page")
			return
		}
	}
	lo := min((n-1)*size, len(items))
	hi := min(lo+size, len(items))
	out := map[string]any{"values": append([]any{}, items[lo:hi]...), "page": n, "pagelen": size, "size": len(items)}
	if hi < len(items) {
		q.Set("page", strconv.Itoa(n+1))
		next := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
		out["next"] = next.String()
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repo(w, r); rp != nil {
		reply(w, http.StatusOK, map[string]any{
			"type": "repository", "full_name": rp.Workspace + "/" + rp.Slug, "slug": rp.Slug,
			"mainbranch": map[string]any{"type": "branch", "name": rp.MainBranch},
			"has_issues": rp.HasIssues, "is_private": true,
			"links": map[string]any{"html": map[string]any{"href": s.web(rp)}},
		})
	}
}

// web is the repository's page: bitbucket.org/ws/slug on the real host.
func (s *Server) web(rp *Repo) string { return s.URL() + "/" + rp.Workspace + "/" + rp.Slug }

func (s *Server) prJSON(rp *Repo, pr *PR) map[string]any {
	reviewers := []any{}
	for _, id := range pr.Reviewers {
		reviewers = append(reviewers, user(id))
	}
	branch := func(name, repository string) map[string]any {
		return map[string]any{"branch": map[string]any{"name": name},
			"repository": map[string]any{"type": "repository", "full_name": repository}}
	}
	return map[string]any{
		"type": "pullrequest", "id": pr.ID, "title": pr.Title, "description": pr.Description,
		"summary": map[string]any{"raw": pr.Description, "markup": "markdown"},
		"state":   pr.State, "draft": pr.Draft, "author": user(pr.Author), "reviewers": reviewers,
		"source":      branch(pr.Source, pr.SourceRepo),
		"destination": branch(pr.Destination, rp.Workspace+"/"+rp.Slug),
		"created_on":  pr.Created.UTC().Format(time.RFC3339Nano),
		"links":       map[string]any{"html": map[string]any{"href": fmt.Sprintf("%s/pull-requests/%d", s.web(rp), pr.ID)}},
	}
}

// listPulls lists by state (repeated; OPEN when unasked), q and sort.
func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(w, r)
	if rp == nil {
		return
	}
	states := r.URL.Query()["state"]
	if len(states) == 0 {
		states = []string{"OPEN"}
	}
	match, err := parseQuery(r.URL.Query().Get("q"))
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	prs := slices.Clone(rp.prs)
	switch r.URL.Query().Get("sort") {
	case "", "id", "created_on":
	case "-id", "-created_on":
		slices.Reverse(prs)
	default:
		fail(w, http.StatusBadRequest, "Invalid sort field")
		return
	}
	var items []any
	for _, pr := range prs {
		j := s.prJSON(rp, pr)
		if slices.Contains(states, pr.State) && match(j) {
			items = append(items, j)
		}
	}
	s.page(w, r, items)
}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) (*Repo, *PR) {
	rp := s.repo(w, r)
	if rp == nil {
		return nil, nil
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > len(rp.prs) {
		fail(w, http.StatusNotFound, "Pull request not found")
		return nil, nil
	}
	return rp, rp.prs[id-1]
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp, pr := s.pull(w, r); pr != nil {
		reply(w, http.StatusOK, s.prJSON(rp, pr))
	}
}

type prBody struct {
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Summary     *struct {
		Raw string `json:"raw"`
	} `json:"summary"`
	Draft  bool `json:"draft"`
	Source struct {
		Branch struct{ Name string } `json:"branch"`
	} `json:"source"`
	Destination *struct {
		Branch struct{ Name string } `json:"branch"`
	} `json:"destination"`
	Reviewers *[]struct {
		UUID      string `json:"uuid"`
		AccountID string `json:"account_id"`
	} `json:"reviewers"`
}

func (b prBody) reviewers() []string {
	var out []string
	for _, u := range *b.Reviewers {
		id := u.AccountID
		if id == "" {
			id = u.UUID
		}
		out = append(out, id)
	}
	return out
}

// createPull opens a pull request from the repository's own branch. One
// open from the same branch to the same destination is a 400, as
// Bitbucket refuses it; reviewers are the ones the body names (the API
// adds no default reviewers by itself).
func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var b prBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "Invalid JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(w, r)
	if rp == nil {
		return
	}
	if b.Title == nil || *b.Title == "" || b.Source.Branch.Name == "" {
		fail(w, http.StatusBadRequest, "title and source.branch.name are required")
		return
	}
	dest := rp.MainBranch
	if b.Destination != nil && b.Destination.Branch.Name != "" {
		dest = b.Destination.Branch.Name
	}
	if rp.git != nil {
		if _, ok := rp.git.BranchSHA(rp.Workspace, rp.Slug, b.Source.Branch.Name); !ok {
			fail(w, http.StatusBadRequest, "source: branch not found: "+b.Source.Branch.Name)
			return
		}
		if _, ok := rp.git.BranchSHA(rp.Workspace, rp.Slug, dest); !ok {
			fail(w, http.StatusBadRequest, "destination: branch not found: "+dest)
			return
		}
	}
	for _, pr := range rp.prs {
		if pr.State == "OPEN" && pr.Source == b.Source.Branch.Name && pr.Destination == dest &&
			pr.SourceRepo == rp.Workspace+"/"+rp.Slug {
			fail(w, http.StatusBadRequest, "There is already an open pull request from "+pr.Source+" to "+dest)
			return
		}
	}
	pr := &PR{ID: len(rp.prs) + 1, Title: *b.Title, State: "OPEN", Draft: b.Draft, Author: BotAccountID,
		Source: b.Source.Branch.Name, SourceRepo: rp.Workspace + "/" + rp.Slug, Destination: dest, Created: s.clock()}
	if b.Description != nil {
		pr.Description = *b.Description
	}
	if b.Reviewers != nil {
		pr.Reviewers = b.reviewers()
	}
	rp.prs = append(rp.prs, pr)
	reply(w, http.StatusCreated, s.prJSON(rp, pr))
}

// updatePull changes title, description and reviewers (the body's, none
// when it names none); a closed pull request cannot be changed.
func (s *Server) updatePull(w http.ResponseWriter, r *http.Request) {
	var b prBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "Invalid JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, pr := s.pull(w, r)
	if pr == nil {
		return
	}
	if pr.State != "OPEN" {
		fail(w, http.StatusBadRequest, "You can't edit a pull request that is "+strings.ToLower(pr.State))
		return
	}
	if b.Title != nil {
		pr.Title = *b.Title
	}
	if b.Description != nil {
		pr.Description = *b.Description
	}
	// A PUT without reviewers removes them all, as Bitbucket's does:
	// an update sends the current ones back.
	pr.Reviewers = nil
	if b.Reviewers != nil {
		for _, id := range b.reviewers() {
			if id == pr.Author {
				fail(w, http.StatusBadRequest, "The author of a pull request cannot be a reviewer")
				return
			}
		}
		pr.Reviewers = b.reviewers()
	}
	reply(w, http.StatusOK, s.prJSON(rp, pr))
}

func (s *Server) declinePull(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, pr := s.pull(w, r)
	if pr == nil {
		return
	}
	if pr.State != "OPEN" {
		fail(w, http.StatusBadRequest, "Pull request is already closed")
		return
	}
	pr.State = "DECLINED"
	reply(w, http.StatusOK, s.prJSON(rp, pr))
}
