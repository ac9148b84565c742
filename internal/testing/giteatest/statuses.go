package giteatest

import (
	"net/http"
	"slices"

	"code.gitea.io/sdk/gitea"
)

var statusStates = []gitea.StatusState{gitea.StatusPending, gitea.StatusSuccess, gitea.StatusError, gitea.StatusFailure, gitea.StatusWarning, "skipped"}

// createStatus records a commit status, as CI, Flux or an Actions job
// posts it; the pull requests scheduled to merge on it merge once every
// context of their head succeeded.
func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	var form gitea.CreateStatusOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if !slices.Contains(statusStates, form.State) {
		writeError(w, http.StatusUnprocessableEntity, "[State]: invalid commit status state")
		return
	}
	sha := r.PathValue("sha")
	ctxName := form.Context
	if ctxName == "" {
		ctxName = "default"
	}
	st := &gitea.Status{ID: s.id(), State: form.State, TargetURL: form.TargetURL, Description: form.Description,
		Context: ctxName, Creator: s.user(actor(r)), Created: s.now(), Updated: s.now()}
	rp.statuses[sha] = append(rp.statuses[sha], st)
	for _, is := range rp.issues {
		if p := is.pull; p != nil && !is.closed && p.autoMerge != "" {
			s.sync(rp, is)
			if p.headSHA == sha && rp.succeeded(sha) {
				s.land(rp, is, p.autoMerge)
			}
		}
	}
	writeJSON(w, http.StatusCreated, st)
}

// latest is each context's newest status on sha, in context order of
// first report.
func (rp *repo) latest(sha string) []*gitea.Status {
	var out []*gitea.Status
	for _, st := range rp.statuses[sha] {
		i := slices.IndexFunc(out, func(o *gitea.Status) bool { return o.Context == st.Context })
		if i < 0 {
			out = append(out, st)
		} else {
			out[i] = st
		}
	}
	return out
}

// succeeded reports whether sha has statuses and every context's newest
// is a success.
func (rp *repo) succeeded(sha string) bool {
	l := rp.latest(sha)
	return len(l) > 0 && !slices.ContainsFunc(l, func(st *gitea.Status) bool { return st.State != gitea.StatusSuccess })
}

// resolve is a ref (a branch or a commit) as a commit SHA.
func (rp *repo) resolve(ref string) string {
	if sha, ok := rp.git.BranchSHA(rp.owner, rp.name, ref); ok {
		return sha
	}
	return ref
}

// combinedStatus is one page (30 unless asked) of each context's newest
// status, with total_count of them all.
func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	sha := rp.resolve(r.PathValue("ref"))
	all := rp.latest(sha)
	page, limit := s.paging(r)
	lo, hi := min((page-1)*limit, len(all)), min(page*limit, len(all))
	state := gitea.StatusSuccess
	for _, st := range all {
		switch {
		case st.State == gitea.StatusFailure || st.State == gitea.StatusError:
			state = st.State
		case st.State == gitea.StatusPending && state == gitea.StatusSuccess:
			state = gitea.StatusPending
		}
	}
	if len(all) == 0 {
		state = gitea.StatusPending
	}
	writeJSON(w, http.StatusOK, &gitea.CombinedStatus{State: state, SHA: sha, TotalCount: len(all), Statuses: append([]*gitea.Status{}, all[lo:hi]...)})
}

// listStatuses is every status on ref, newest first, paged.
func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	list := slices.Clone(rp.statuses[rp.resolve(r.PathValue("ref"))])
	slices.Reverse(list)
	writePage(s, w, r, list)
}
