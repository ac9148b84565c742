package githubtest

import (
	"net/http"
	"strconv"
)

// The preamble every endpoint on a repository shares. The request's JSON
// body is decoded into in (none when in is nil) before s.mu is taken, so
// that no lock waits on a client still sending; then s.mu is taken and
// what the endpoint works on is resolved. On success the caller holds s.mu
// and releases it (defer s.mu.Unlock()); on failure the answer (400, 404)
// is written and s.mu is free.

// lockRepo resolves {owner}/{repo}.
func (s *Server) lockRepo(w http.ResponseWriter, req *http.Request, in any) *repo {
	if in != nil && !decode(w, req, in) {
		return nil
	}
	s.mu.Lock()
	r := s.repos[repoKey(req.PathValue("owner"), req.PathValue("repo"))]
	if r == nil {
		s.mu.Unlock()
		notFound(w, req)
	}
	return r
}

// lockPull resolves {owner}/{repo} and the pull request {number}.
func (s *Server) lockPull(w http.ResponseWriter, req *http.Request, in any) (*repo, *pull) {
	r := s.lockRepo(w, req, in)
	if r == nil {
		return nil, nil
	}
	n, err := strconv.Atoi(req.PathValue("number"))
	p := r.pull(n)
	if err != nil || p == nil {
		s.mu.Unlock()
		notFound(w, req)
		return nil, nil
	}
	return r, p
}

// lockCommit resolves {owner}/{repo} and the commit {ref} names, as the
// statuses and check runs endpoints do: a full SHA or a branch.
func (s *Server) lockCommit(w http.ResponseWriter, req *http.Request) (*repo, string) {
	r := s.lockRepo(w, req, nil)
	if r == nil {
		return nil, ""
	}
	sha, ok := s.commitSHA(r, req.PathValue("ref"))
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+req.PathValue("ref"))
		return nil, ""
	}
	return r, sha
}
