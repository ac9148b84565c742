package giteatest

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"code.gitea.io/sdk/gitea"
)

func (s *Server) apiRepo(r *repo, login string) *gitea.Repository {
	html, _ := url.JoinPath(s.URL(), r.owner, r.name)
	return &gitea.Repository{ID: r.id, Owner: s.user(r.owner), Name: r.name, FullName: r.owner + "/" + r.name,
		HTMLURL: html, CloneURL: r.cloneURL, DefaultBranch: r.defaultBranch, HasIssues: !r.issuesOff, HasPullRequests: true,
		DefaultMergeStyle: gitea.MergeStyle(r.mergeStyle), AllowMerge: true, AllowSquash: true, AllowRebase: true,
		Permissions: &gitea.Permission{Pull: true, Push: login != "", Admin: false}}
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	login := actor(r)
	if _, ro := s.readOnlyLogin(login); ro {
		login = ""
	}
	writeJSON(w, http.StatusOK, s.apiRepo(rp, login))
}

func (s *Server) readOnlyLogin(login string) (string, bool) {
	for _, l := range s.readOnly {
		if l == login {
			return l, true
		}
	}
	return "", false
}

func (s *Server) apiPull(r *repo, is *issue) *gitea.PullRequest {
	p := is.pull
	s.sync(r, is)
	repo := s.apiRepo(r, "")
	pr := &gitea.PullRequest{ID: is.index + 10000, Index: is.index, Poster: s.user(is.author), Title: is.title, Body: is.body,
		Labels: r.apiLabels(is.labels), State: gitea.StateType(state(is)), Draft: isDraft(is.title),
		HTMLURL: s.htmlURL(r, "pulls", is.index), Mergeable: !is.closed, HasMerged: p.merged,
		Base:    &gitea.PRBranchInfo{Name: p.base, Ref: p.base, RepoID: r.id, Repository: repo},
		Head:    &gitea.PRBranchInfo{Name: p.head, Ref: p.head, Sha: p.headSHA, RepoID: r.id, Repository: repo},
		Created: &is.created, Updated: &is.updated, RequestedReviewers: []*gitea.User{}}
	if p.fork != "" {
		// A fork's head is in the fork, a repository of its own.
		fork := &gitea.Repository{ID: r.id + forkIDs, Owner: s.user(p.fork), Name: r.name, FullName: p.fork + "/" + r.name}
		pr.Head.RepoID, pr.Head.Repository = fork.ID, fork
	}
	if sha, ok := r.git.BranchSHA(r.owner, r.name, p.base); ok {
		pr.Base.Sha = sha
	}
	for _, l := range p.reviewers {
		pr.RequestedReviewers = append(pr.RequestedReviewers, s.user(l))
	}
	if p.merged {
		at := p.mergedAt
		pr.Merged, pr.MergedCommitID = &at, &p.mergeCommitSHA
	}
	if is.closed {
		at := is.updated
		pr.Closed = &at
	}
	return pr
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	st := r.URL.Query().Get("state")
	if st == "" {
		st = "open"
	}
	// poster filters by author's login, from Gitea 1.23 on; an earlier
	// Gitea ignores it.
	poster := r.URL.Query().Get("poster")
	if s.versionBefore("1.23") {
		poster = ""
	}
	var list []*issue
	for _, is := range rp.issues {
		if is.pull != nil && (st == "all" || st == state(is)) && (poster == "" || strings.EqualFold(poster, is.author)) {
			list = append(list, is)
		}
	}
	if r.URL.Query().Get("sort") != "oldest" {
		slices.Reverse(list) // Gitea's default: newest first
	}
	// Only the page asked for is made: thousands of pull requests with
	// long bodies cost a page's work, as on Gitea.
	lo, hi := pageBounds(s, w, r, len(list))
	out := []*gitea.PullRequest{}
	for _, is := range list[lo:hi] {
		out = append(out, s.apiPull(rp, is))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if is := rp.indexed(w, r, true); is != nil {
		writeJSON(w, http.StatusOK, s.apiPull(rp, is))
	}
}

// createPull is Gitea's CreatePullRequest: 422 when head is base, 404
// for a missing branch, 409 when an open one has the same head and base.
func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var form gitea.CreatePullRequestOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if form.Head == form.Base {
		writeError(w, http.StatusUnprocessableEntity, "Invalid PullRequest: There are no changes between the head and the base")
		return
	}
	headSHA, okHead := rp.git.BranchSHA(rp.owner, rp.name, form.Head)
	if _, okBase := rp.git.BranchSHA(rp.owner, rp.name, form.Base); !okHead || !okBase {
		notFound(w)
		return
	}
	for _, is := range rp.issues {
		if p := is.pull; p != nil && !is.closed && p.fork == "" && p.head == form.Head && p.base == form.Base {
			writeError(w, http.StatusConflict, fmt.Sprintf("pull request already exists for these targets [id: %d, issue_id: %d, head_repo_id: %d, base_repo_id: %d, head_branch: %s, base_branch: %s]",
				is.index+10000, is.index, rp.id, rp.id, p.head, p.base))
			return
		}
	}
	is := s.newIssue(rp, actor(r), form.Title, form.Body)
	is.pull = &pull{head: form.Head, base: form.Base, headSHA: headSHA}
	is.labels = rp.known(form.Labels)
	writeJSON(w, http.StatusCreated, s.apiPull(rp, is))
}

func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	var form gitea.EditPullRequestOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, true)
	if is == nil {
		return
	}
	s.edit(rp, is, form.Title, form.Body, form.State)
	writeJSON(w, http.StatusCreated, s.apiPull(rp, is))
}

// edit changes an issue or pull request; a merged one cannot reopen.
func (s *Server) edit(rp *repo, is *issue, title string, body *string, st *gitea.StateType) {
	s.sync(rp, is)
	if title != "" {
		is.title = title
	}
	if body != nil {
		is.body = *body
	}
	if st != nil && !(is.pull != nil && is.pull.merged) {
		is.closed = *st == gitea.StateClosed
	}
	is.updated = s.now()
}

// mergePull merges now, or with merge_when_checks_succeed schedules the
// merge (201, no body) unless the head's statuses all succeeded already;
// a second schedule is a 409, an unmergeable one a 405.
func (s *Server) mergePull(w http.ResponseWriter, r *http.Request) {
	var form gitea.MergePullRequestOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, true)
	if is == nil {
		return
	}
	if is.closed {
		writeError(w, http.StatusMethodNotAllowed, "The PR is closed")
		return
	}
	s.sync(rp, is)
	if form.MergeWhenChecksSucceed && !rp.succeeded(is.pull.headSHA) {
		if is.pull.autoMerge != "" {
			writeError(w, http.StatusConflict, "pull request is already scheduled to auto merge when checks succeed")
			return
		}
		is.pull.autoMerge = string(form.Style)
		w.WriteHeader(http.StatusCreated)
		return
	}
	if err := s.land(rp, is, string(form.Style)); err != nil {
		writeError(w, http.StatusMethodNotAllowed, "Please try again later: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) requestReviewers(w http.ResponseWriter, r *http.Request) {
	var form gitea.PullReviewRequestOptions
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, true)
	if is == nil {
		return
	}
	for _, l := range form.Reviewers {
		if !slices.Contains(is.pull.reviewers, l) {
			is.pull.reviewers = append(is.pull.reviewers, l)
		}
	}
	for _, t := range form.TeamReviewers {
		if !slices.Contains(is.pull.teams, t) {
			is.pull.teams = append(is.pull.teams, t)
		}
	}
	writeJSON(w, http.StatusCreated, []any{})
}

func (s *Server) apiIssue(r *repo, is *issue) *gitea.Issue {
	out := &gitea.Issue{ID: is.index + 20000, Index: is.index, Poster: s.user(is.author), Title: is.title, Body: is.body,
		Labels: r.apiLabels(is.labels), State: gitea.StateType(state(is)), Created: is.created, Updated: is.updated,
		HTMLURL: s.htmlURL(r, "issues", is.index)}
	if is.pull != nil {
		out.HTMLURL = s.htmlURL(r, "pulls", is.index)
		out.PullRequest = &gitea.PullRequestMeta{HasMerged: is.pull.merged}
	}
	return out
}

// listIssues is Gitea's repository issue listing: newest first; pull
// requests too unless type=issues; an empty list for type=issues when
// issues are off.
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	q := r.URL.Query()
	st, typ, by := q.Get("state"), q.Get("type"), q.Get("created_by")
	if st == "" {
		st = "open"
	}
	list := []*gitea.Issue{}
	for i := len(rp.issues) - 1; i >= 0; i-- {
		is := rp.issues[i]
		switch {
		case typ == "issues" && (is.pull != nil || rp.issuesOff),
			typ == "pulls" && is.pull == nil,
			st != "all" && st != state(is),
			by != "" && !strings.EqualFold(by, is.author):
			continue
		}
		list = append(list, s.apiIssue(rp, is))
	}
	writePage(s, w, r, list)
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request) {
	var form gitea.CreateIssueOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if rp.issuesOff {
		notFound(w)
		return
	}
	if strings.TrimSpace(form.Title) == "" {
		writeError(w, http.StatusUnprocessableEntity, "[Title]: Required")
		return
	}
	is := s.newIssue(rp, actor(r), form.Title, form.Body)
	is.labels = rp.known(form.Labels)
	writeJSON(w, http.StatusCreated, s.apiIssue(rp, is))
}

func (s *Server) editIssue(w http.ResponseWriter, r *http.Request) {
	var form gitea.EditIssueOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, false)
	if is == nil {
		return
	}
	s.edit(rp, is, form.Title, form.Body, form.State)
	writeJSON(w, http.StatusCreated, s.apiIssue(rp, is))
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if is := rp.indexed(w, r, false); is != nil {
		writePage(s, w, r, is.comments)
	}
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	var form gitea.CreateIssueCommentOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, false)
	if is == nil {
		return
	}
	c := &gitea.Comment{ID: s.id(), Poster: s.user(actor(r)), Body: form.Body, Created: s.now(), Updated: s.now()}
	is.comments = append(is.comments, c)
	writeJSON(w, http.StatusCreated, c)
}

// known keeps the label IDs the repository has: Gitea drops the others.
func (rp *repo) known(ids []int64) []int64 {
	var out []int64
	for _, id := range ids {
		if slices.ContainsFunc(rp.labels, func(l *gitea.Label) bool { return l.ID == id }) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request) {
	var form gitea.IssueLabelsOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	is := rp.indexed(w, r, false)
	if is == nil {
		return
	}
	is.labels = rp.known(append(is.labels, form.Labels...))
	writeJSON(w, http.StatusOK, rp.apiLabels(is.labels))
}

func (s *Server) listLabels(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	writePage(s, w, r, rp.labels)
}

var labelColor = regexp.MustCompile(`^#?[0-9a-fA-F]{6}$`)

func (s *Server) createLabel(w http.ResponseWriter, r *http.Request) {
	var form gitea.CreateLabelOption
	if !decode(w, r, &form) {
		return
	}
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	if !labelColor.MatchString(form.Color) || strings.TrimSpace(form.Name) == "" {
		writeError(w, http.StatusUnprocessableEntity, "[Color]: Color must be a hex color")
		return
	}
	l := &gitea.Label{ID: s.id(), Name: form.Name, Color: strings.TrimPrefix(form.Color, "#"), Description: form.Description}
	rp.labels = append(rp.labels, l)
	writeJSON(w, http.StatusCreated, l)
}

func (s *Server) deleteBranch(w http.ResponseWriter, r *http.Request) {
	rp, unlock := s.lookup(w, r)
	if rp == nil {
		return
	}
	defer unlock()
	b := r.PathValue("branch")
	if b == rp.defaultBranch {
		writeError(w, http.StatusForbidden, "can not delete default branch")
		return
	}
	for _, is := range rp.issues {
		s.sync(rp, is) // freeze nothing: open PRs keep their last head
	}
	if err := rp.git.DeleteBranch(rp.owner, rp.name, b); err != nil {
		notFound(w)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
