package bitbuckettest

// The handlers of what hangs off a pull request or the repository besides
// pull requests: comments, default reviewers, build statuses, issues and
// branches.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, pr := s.pull(w, r)
	if pr == nil {
		return
	}
	var items []any
	for _, c := range pr.Comments {
		items = append(items, map[string]any{"type": "pullrequest_comment", "id": c.ID, "user": user(c.Author),
			"content": map[string]any{"raw": c.Raw, "markup": "markdown"}})
	}
	s.page(w, r, items)
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Content struct{ Raw string } `json:"content"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Content.Raw == "" {
		fail(w, http.StatusBadRequest, "content.raw is required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, pr := s.pull(w, r)
	if pr == nil {
		return
	}
	c := Comment{ID: len(pr.Comments) + 1, Author: BotAccountID, Raw: b.Content.Raw}
	pr.Comments = append(pr.Comments, c)
	reply(w, http.StatusCreated, map[string]any{"id": c.ID, "content": map[string]any{"raw": c.Raw}, "user": user(c.Author)})
}

func (s *Server) defaultReviewers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(w, r)
	if rp == nil {
		return
	}
	var items []any
	for _, id := range rp.DefaultReviewers {
		items = append(items, map[string]any{"type": "default_reviewer_and_type", "reviewer_type": "repository", "user": user(id)})
	}
	s.page(w, r, items)
}

func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repo(w, r)
	if rp == nil {
		return
	}
	var items []any
	for _, st := range rp.statuses[r.PathValue("sha")] {
		items = append(items, map[string]any{"type": "build", "key": st.Key, "state": st.State, "name": st.Name})
	}
	s.page(w, r, items)
}

func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var st Status
	if err := json.NewDecoder(r.Body).Decode(&st); err != nil || st.Key == "" ||
		!slices.Contains([]string{"SUCCESSFUL", "FAILED", "INPROGRESS", "STOPPED"}, st.State) {
		fail(w, http.StatusBadRequest, "key and a valid state are required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repo(w, r); rp != nil {
		rp.addStatus(r.PathValue("sha"), st)
		reply(w, http.StatusCreated, map[string]any{"key": st.Key, "state": st.State})
	}
}

// tracker is the repository when its issue tracker is on; else it
// answers 404, as Bitbucket does.
func (s *Server) tracker(w http.ResponseWriter, r *http.Request) *Repo {
	rp := s.repo(w, r)
	if rp != nil && !rp.HasIssues {
		fail(w, http.StatusNotFound, "Repository has no issue tracker.")
		return nil
	}
	return rp
}

func (s *Server) issueJSON(rp *Repo, is *Issue) map[string]any {
	return map[string]any{"type": "issue", "id": is.ID, "title": is.Title, "kind": "task", "state": "new",
		"content": map[string]any{"raw": is.Raw, "markup": "markdown"}, "reporter": user(is.Reporter),
		"created_on": is.Created.UTC().Format(time.RFC3339Nano),
		"links":      map[string]any{"html": map[string]any{"href": fmt.Sprintf("%s/issues/%d", s.web(rp), is.ID)}}}
}

func (s *Server) listIssues(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.tracker(w, r)
	if rp == nil {
		return
	}
	match, err := parseQuery(r.URL.Query().Get("q"))
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	var items []any
	for _, is := range rp.issues {
		if j := s.issueJSON(rp, is); match(j) {
			items = append(items, j)
		}
	}
	s.page(w, r, items)
}

type issueBody struct {
	Title   string `json:"title"`
	Content *struct {
		Raw string `json:"raw"`
	} `json:"content"`
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request) {
	var b issueBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Title == "" {
		fail(w, http.StatusBadRequest, "title is required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.tracker(w, r)
	if rp == nil {
		return
	}
	is := &Issue{ID: len(rp.issues) + 1, Title: b.Title, Reporter: BotAccountID, Created: s.clock()}
	if b.Content != nil {
		is.Raw = b.Content.Raw
	}
	rp.issues = append(rp.issues, is)
	reply(w, http.StatusCreated, s.issueJSON(rp, is))
}

func (s *Server) updateIssue(w http.ResponseWriter, r *http.Request) {
	var b issueBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		fail(w, http.StatusBadRequest, "Invalid JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.tracker(w, r)
	if rp == nil {
		return
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > len(rp.issues) {
		fail(w, http.StatusNotFound, "Issue not found")
		return
	}
	is := rp.issues[id-1]
	if b.Title != "" {
		is.Title = b.Title
	}
	if b.Content != nil {
		is.Raw = b.Content.Raw
	}
	reply(w, http.StatusOK, s.issueJSON(rp, is))
}

// deleteBranch deletes the branch (with WithGit) and records it.
func (s *Server) deleteBranch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repo(w, r); rp != nil {
		if rp.git != nil {
			if err := rp.git.DeleteBranch(rp.Workspace, rp.Slug, r.PathValue("name")); err != nil {
				fail(w, http.StatusNotFound, "Branch not found: "+r.PathValue("name"))
				return
			}
		}
		rp.DeletedBranches = append(rp.DeletedBranches, r.PathValue("name"))
		w.WriteHeader(http.StatusNoContent)
	}
}
