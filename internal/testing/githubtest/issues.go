package githubtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Comments and labels live on the issue side of a pull request, as on
// GitHub: /issues/{number}/... with the PR's number.

type commentJSON struct {
	ID                int64    `json:"id"`
	NodeID            string   `json:"node_id"`
	URL               string   `json:"url"`
	HTMLURL           string   `json:"html_url"`
	IssueURL          string   `json:"issue_url"`
	Body              string   `json:"body"`
	User              userJSON `json:"user"`
	CreatedAt         string   `json:"created_at"`
	UpdatedAt         string   `json:"updated_at"`
	AuthorAssociation string   `json:"author_association"`
}

func (s *Server) commentJSON(r *repo, p *pull, c comment) commentJSON {
	api := fmt.Sprintf("%s/repos/%s/%s", s.URL(), r.owner, r.name)
	return commentJSON{
		ID: c.id, NodeID: nodeID("IC", fmt.Sprint(c.id)),
		URL:      fmt.Sprintf("%s/issues/comments/%d", api, c.id),
		HTMLURL:  fmt.Sprintf("%s/%s/%s/pull/%d#issuecomment-%d", s.URL(), r.owner, r.name, p.number, c.id),
		IssueURL: fmt.Sprintf("%s/issues/%d", api, p.number),
		Body:     c.body, User: user(c.author), CreatedAt: stamp(c.created), UpdatedAt: stamp(c.created),
		AuthorAssociation: "CONTRIBUTOR",
	}
}

// listComments pages the comments oldest first, GitHub's order.
func (s *Server) listComments(w http.ResponseWriter, req *http.Request) {
	r, p := s.lockPull(w, req, nil)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	lo, hi := s.page(w, req, len(p.comments))
	out := []commentJSON{}
	for _, c := range p.comments[lo:hi] {
		out = append(out, s.commentJSON(r, p, c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createComment(w http.ResponseWriter, req *http.Request) {
	var in struct{ Body string }
	r, p := s.lockPull(w, req, &in)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	if in.Body == "" {
		writeInvalid(w, fieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
		return
	}
	if utf8.RuneCountInString(in.Body) > maxBody {
		writeInvalid(w, fieldError{Resource: "IssueComment", Field: "data", Code: "unprocessable", Message: fmt.Sprintf("Body is too long (maximum is %d characters)", maxBody)})
		return
	}
	c := comment{id: s.id(), author: actorOf(req).login, body: in.Body, created: s.now()}
	p.comments = append(p.comments, c)
	p.updated = c.created
	j := s.commentJSON(r, p, c)
	w.Header().Set("Location", j.URL)
	writeJSON(w, http.StatusCreated, j)
}

func (s *Server) listLabels(w http.ResponseWriter, req *http.Request) {
	r, p := s.lockPull(w, req, nil)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	lo, hi := s.page(w, req, len(p.labels))
	s.writeLabels(w, r, p.labels[lo:hi])
}

// labelName accepts both spellings GitHub takes: "name" and {"name": ...}.
type labelName string

func (l *labelName) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = labelName(s)
		return nil
	}
	var obj struct{ Name string }
	err := json.Unmarshal(b, &obj)
	*l = labelName(obj.Name)
	return err
}

// addLabels takes a bare array (go-github's form) or {"labels": [...]},
// creates unknown labels in the repository as GitHub does, and answers with
// all the labels now on the PR.
func (s *Server) addLabels(w http.ResponseWriter, req *http.Request) {
	var raw json.RawMessage
	if !decode(w, req, &raw) {
		return
	}
	var names []labelName
	if err := json.Unmarshal(raw, &names); err != nil {
		var obj struct{ Labels []labelName }
		if err := json.Unmarshal(raw, &obj); err != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		names = obj.Labels
	}
	r, p := s.lockPull(w, req, nil)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	for _, n := range names {
		if strings.TrimSpace(string(n)) == "" {
			writeInvalid(w, fieldError{Resource: "Label", Field: "name", Code: "invalid"})
			return
		}
	}
	for _, n := range names {
		key := strings.ToLower(string(n))
		if r.labels[key] == 0 {
			r.labels[key] = s.id()
		}
		p.labels = addFold(p.labels, string(n))
	}
	p.updated = s.now()
	s.writeLabels(w, r, p.labels)
}

func (s *Server) removeLabel(w http.ResponseWriter, req *http.Request) {
	r, p := s.lockPull(w, req, nil)
	if p == nil {
		return
	}
	defer s.mu.Unlock()
	i := slices.IndexFunc(p.labels, func(l string) bool { return strings.EqualFold(l, req.PathValue("name")) })
	if i < 0 {
		writeError(w, http.StatusNotFound, "Label does not exist")
		return
	}
	p.labels = slices.Delete(p.labels, i, i+1)
	p.updated = s.now()
	s.writeLabels(w, r, p.labels)
}

func (s *Server) writeLabels(w http.ResponseWriter, r *repo, names []string) {
	out := []labelJSON{}
	for _, n := range names {
		out = append(out, s.labelJSON(r, n))
	}
	writeJSON(w, http.StatusOK, out)
}

type refJSON struct {
	Ref    string `json:"ref"`
	NodeID string `json:"node_id"`
	URL    string `json:"url"`
	Object struct {
		Type string `json:"type"`
		SHA  string `json:"sha"`
	} `json:"object"`
}

// getRef answers for branches only; tags are not modelled.
func (s *Server) getRef(w http.ResponseWriter, req *http.Request) {
	r := s.lockRepo(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	branch, ok := strings.CutPrefix(req.PathValue("ref"), "heads/")
	sha, exists := r.git.BranchSHA(r.owner, r.name, branch)
	if !ok || !exists {
		notFound(w, req)
		return
	}
	s.writeRef(w, http.StatusOK, r, branch, sha)
}

// deleteRef deletes a branch; open PRs from it close, as on GitHub.
func (s *Server) deleteRef(w http.ResponseWriter, req *http.Request) {
	r := s.lockRepo(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	branch, ok := strings.CutPrefix(req.PathValue("ref"), "heads/")
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	err := r.git.DeleteBranch(r.owner, r.name, branch)
	switch {
	case errors.Is(err, ErrNoBranch):
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	for _, p := range r.pulls {
		s.sync(r, p, false)
	}
	w.WriteHeader(http.StatusNoContent)
}
