package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Commit statuses and check runs, as Flux's notification-controller and
// Argo CD notifications post them on the commits they applied (statuses),
// and as CI posts check runs. A promotion requires them on the commit that
// brought a version to the source environment.

// checkState is one repository's statuses and check runs by commit SHA.
type checkState struct {
	statuses map[string][]*commitStatus // newest last
	runs     map[string][]*checkRun
}

type commitStatus struct {
	id                               int64
	state, context, description, url string
	created, updated                 time.Time
}

type checkRun struct {
	id                       int64
	name, status, conclusion string
	headSHA                  string
	started, completed       time.Time
	externalID, detailsURL   string
}

func (r *repo) checkState() *checkState {
	if r.checks == nil {
		r.checks = &checkState{statuses: map[string][]*commitStatus{}, runs: map[string][]*checkRun{}}
	}
	return r.checks
}

// commitSHA resolves {ref} as GitHub does for these endpoints: a full SHA
// or a branch name.
func (s *Server) commitSHA(r *repo, ref string) (string, bool) {
	if len(ref) == 40 && strings.Trim(ref, "0123456789abcdef") == "" {
		return ref, true
	}
	return r.git.BranchSHA(r.owner, r.name, strings.TrimPrefix(ref, "heads/"))
}

type statusJSON struct {
	ID          int64    `json:"id"`
	NodeID      string   `json:"node_id"`
	State       string   `json:"state"`
	Context     string   `json:"context"`
	Description *string  `json:"description"`
	TargetURL   *string  `json:"target_url"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	Creator     userJSON `json:"creator"`
}

func statusOf(st *commitStatus) statusJSON {
	return statusJSON{
		ID: st.id, NodeID: nodeID("SC", st.context), State: st.state, Context: st.context,
		Description: nullable(st.description), TargetURL: nullable(st.url),
		CreatedAt: stamp(st.created), UpdatedAt: stamp(st.updated), Creator: user(botLogin),
	}
}

// createStatus is POST /repos/{owner}/{repo}/statuses/{sha}.
func (s *Server) createStatus(w http.ResponseWriter, req *http.Request) {
	var in struct {
		State, Context, Description string
		TargetURL                   string `json:"target_url"`
	}
	r := s.lockRepo(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	sha, ok := s.commitSHA(r, req.PathValue("sha"))
	if !ok {
		writeInvalid(w, fieldError{Resource: "Status", Field: "sha", Code: "invalid"})
		return
	}
	if !slices.Contains(statusStates, in.State) {
		writeInvalid(w, fieldError{Resource: "Status", Field: "state", Code: "invalid"})
		return
	}
	if in.Context == "" {
		in.Context = "default"
	}
	st := s.addStatus(r, sha, commitStatus{state: in.State, context: in.Context, description: in.Description, url: in.TargetURL})
	writeJSON(w, http.StatusCreated, statusOf(st))
}

// statusStates are the states a commit status may have.
var statusStates = []string{"error", "failure", "pending", "success"}

// addStatus records st on sha, newest; the caller holds s.mu.
func (s *Server) addStatus(r *repo, sha string, st commitStatus) *commitStatus {
	st.id, st.created = s.id(), s.now()
	st.updated = st.created
	cs := r.checkState()
	cs.statuses[sha] = append(cs.statuses[sha], &st)
	return &st
}

// combinedStatus is GET /repos/{owner}/{repo}/commits/{ref}/status: the
// newest status of each context, newest first, and their combined state.
func (s *Server) combinedStatus(w http.ResponseWriter, req *http.Request) {
	r, sha := s.lockCommit(w, req)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	all := r.checkState().statuses[sha]
	var latest []*commitStatus
	seen := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- {
		if !seen[all[i].context] {
			seen[all[i].context] = true
			latest = append(latest, all[i])
		}
	}
	state := "success"
	if len(latest) == 0 {
		state = "pending"
	}
	for _, st := range latest {
		switch {
		case st.state == "failure" || st.state == "error":
			state = "failure"
		case st.state == "pending" && state == "success":
			state = "pending"
		}
	}
	lo, hi := s.page(w, req, len(latest))
	out := []statusJSON{}
	for _, st := range latest[lo:hi] {
		out = append(out, statusOf(st))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"state": state, "sha": sha, "total_count": len(latest), "statuses": out,
		"repository": s.repoJSON(r), "commit_url": s.URL() + "/repos/" + r.owner + "/" + r.name + "/commits/" + sha,
	})
}

type checkRunJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	Name        string  `json:"name"`
	HeadSHA     string  `json:"head_sha"`
	Status      string  `json:"status"`
	Conclusion  *string `json:"conclusion"`
	StartedAt   string  `json:"started_at"`
	CompletedAt *string `json:"completed_at"`
	ExternalID  string  `json:"external_id"`
	DetailsURL  *string `json:"details_url"`
}

func runOf(c *checkRun) checkRunJSON {
	return checkRunJSON{
		ID: c.id, NodeID: nodeID("CR", c.name), Name: c.name, HeadSHA: c.headSHA, Status: c.status,
		Conclusion: nullable(c.conclusion), StartedAt: stamp(c.started), CompletedAt: nullTime(c.completed),
		ExternalID: c.externalID, DetailsURL: nullable(c.detailsURL),
	}
}

// createCheckRun is POST /repos/{owner}/{repo}/check-runs.
func (s *Server) createCheckRun(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Name, Status, Conclusion string
		HeadSHA                  string `json:"head_sha"`
		ExternalID               string `json:"external_id"`
		DetailsURL               string `json:"details_url"`
	}
	r := s.lockRepo(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	sha, ok := s.commitSHA(r, in.HeadSHA)
	switch {
	case in.Name == "":
		writeInvalid(w, fieldError{Resource: "CheckRun", Field: "name", Code: "missing_field"})
		return
	case !ok:
		writeInvalid(w, fieldError{Resource: "CheckRun", Field: "head_sha", Code: "invalid"})
		return
	}
	if in.Status == "" {
		in.Status = "queued"
	}
	if in.Conclusion != "" {
		in.Status = "completed"
	}
	t := s.now()
	c := &checkRun{id: s.id(), name: in.Name, status: in.Status, conclusion: in.Conclusion, headSHA: sha, started: t, externalID: in.ExternalID, detailsURL: in.DetailsURL}
	if c.status == "completed" {
		c.completed = t
	}
	cs := r.checkState()
	cs.runs[sha] = append(cs.runs[sha], c)
	writeJSON(w, http.StatusCreated, runOf(c))
}

// listCheckRuns is GET /repos/{owner}/{repo}/commits/{ref}/check-runs,
// newest first; filter=latest (the default) keeps each name's newest run.
func (s *Server) listCheckRuns(w http.ResponseWriter, req *http.Request) {
	r, sha := s.lockCommit(w, req)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	all := r.checkState().runs[sha]
	latestOnly := req.URL.Query().Get("filter") != "all"
	var runs []*checkRun
	seen := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- {
		if name := req.URL.Query().Get("check_name"); name != "" && all[i].name != name {
			continue
		}
		if latestOnly && seen[all[i].name] {
			continue
		}
		seen[all[i].name] = true
		runs = append(runs, all[i])
	}
	lo, hi := s.page(w, req, len(runs))
	out := []checkRunJSON{}
	for _, c := range runs[lo:hi] {
		out = append(out, runOf(c))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": out})
}

// PostStatus posts a commit status on sha as a tool would over the API (Flux
// for a demo, say): state is error, failure, pending or success.
func (s *Server) PostStatus(owner, name, sha, context, state string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.named(owner, name)
	if err != nil {
		return err
	}
	if !slices.Contains(statusStates, state) {
		return fmt.Errorf("status state %q", state)
	}
	s.addStatus(r, sha, commitStatus{state: state, context: context})
	return nil
}
