package githubtest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// createRef is POST /git/refs; only branches are modelled.
func (s *Server) createRef(w http.ResponseWriter, req *http.Request) {
	var in struct{ Ref, SHA string }
	r, gd, st := s.lockGit(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	branch, ok := strings.CutPrefix(in.Ref, "refs/heads/")
	if !ok || branch == "" {
		writeError(w, http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
		return
	}
	if _, err := object.GetCommit(st, plumbing.NewHash(in.SHA)); err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if err := gd.SetBranch(r.owner, r.name, branch, in.SHA, ""); err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	s.syncAll(r)
	s.writeRef(w, http.StatusCreated, r, branch, in.SHA)
}

// updateRef is PATCH /git/refs/heads/{branch}: a fast-forward, or with
// force anything. GitHub takes no expected old value; the fake updates
// against the value it read, as GitHub's own ref update does.
func (s *Server) updateRef(w http.ResponseWriter, req *http.Request) {
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	r, gd, st := s.lockGit(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	branch, ok := strings.CutPrefix(req.PathValue("ref"), "heads/")
	old, exists := r.git.BranchSHA(r.owner, r.name, branch)
	if !ok || !exists {
		writeError(w, http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	if _, err := object.GetCommit(st, plumbing.NewHash(in.SHA)); err != nil {
		writeError(w, http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !in.Force {
		ff, err := gd.IsAncestor(r.owner, r.name, old, in.SHA)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		if !ff {
			writeError(w, http.StatusUnprocessableEntity, "Update is not a fast forward")
			return
		}
	}
	err := gd.SetBranch(r.owner, r.name, branch, in.SHA, old)
	if errors.Is(err, ErrStaleRef) {
		// A push landed between the read and the update: GitHub's
		// answer to a lost race on a ref.
		writeError(w, http.StatusConflict, "Reference cannot be updated")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.syncAll(r)
	s.writeRef(w, http.StatusOK, r, branch, in.SHA)
}

// syncAll brings every PR up to date after a ref moved; the caller holds
// s.mu.
func (s *Server) syncAll(r *repo) {
	for _, p := range r.pulls {
		s.sync(r, p, false)
	}
}

func (s *Server) writeRef(w http.ResponseWriter, status int, r *repo, branch, sha string) {
	j := refJSON{Ref: "refs/heads/" + branch, NodeID: nodeID("REF", r.owner+"/"+r.name+":"+branch),
		URL: fmt.Sprintf("%s/repos/%s/%s/git/refs/heads/%s", s.URL(), r.owner, r.name, branch)}
	j.Object.Type, j.Object.SHA = "commit", sha
	writeJSON(w, status, j)
}
