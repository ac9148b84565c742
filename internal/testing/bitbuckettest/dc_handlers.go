package bitbuckettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

type dcRef struct {
	ID string `json:"id"`
}

type dcBody struct {
	Version     *int    `json:"version"`
	Title       *string `json:"title"`
	Description *string `json:"description"`
	Draft       bool    `json:"draft"`
	FromRef     dcRef   `json:"fromRef"`
	ToRef       dcRef   `json:"toRef"`
	Reviewers   *[]struct {
		User struct {
			Name string `json:"name"`
		} `json:"user"`
	} `json:"reviewers"`
}

func (b dcBody) reviewers() []string {
	var out []string
	for _, r := range *b.Reviewers {
		out = append(out, r.User.Name)
	}
	return out
}

// createPull opens a pull request from the repository's own branch; one
// open for the same branches is a 409 that carries it.
func (d *DataCenter) createPull(w http.ResponseWriter, r *http.Request) {
	var b dcBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Title == nil || !strings.HasPrefix(b.FromRef.ID, "refs/heads/") {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "title and fromRef.id (refs/heads/...) are required")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	rp := d.repo(w, r)
	if rp == nil {
		return
	}
	from := strings.TrimPrefix(b.FromRef.ID, "refs/heads/")
	to := strings.TrimPrefix(cmpOr(b.ToRef.ID, "refs/heads/"+rp.DefaultBranch), "refs/heads/")
	if rp.git != nil {
		for _, b := range []string{from, to} {
			if _, ok := rp.git.BranchSHA(rp.Project, rp.Slug, b); !ok {
				dcFail(w, http.StatusNotFound, "repository.NoSuchBranchException", "Branch refs/heads/"+b+" does not exist")
				return
			}
		}
	}
	for _, pr := range rp.prs {
		if pr.State == "OPEN" && pr.From == from && pr.To == to && pr.FromRepo == rp.Project+"/"+rp.Slug {
			dcFail(w, http.StatusConflict, "pull.DuplicatePullRequestException",
				"Only one pull request may be open for a given source and target branch", "existingPullRequest", d.prJSON(rp, pr))
			return
		}
	}
	pr := &DCPR{ID: len(rp.prs) + 1, Title: *b.Title, State: "OPEN", Author: d.login, From: from, To: to,
		FromRepo: rp.Project + "/" + rp.Slug, FromCommit: "c0ffee" + strconv.Itoa(len(rp.prs)+1), Draft: b.Draft, Created: d.clock()}
	if b.Description != nil {
		pr.Desc = *b.Description
	}
	if b.Reviewers != nil {
		pr.Reviewers = b.reviewers()
	}
	rp.prs = append(rp.prs, pr)
	reply(w, http.StatusCreated, d.prJSON(rp, pr))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// find is the pull request of the path, or nil after a 404.
func (d *DataCenter) find(w http.ResponseWriter, r *http.Request) (*DCRepo, *DCPR) {
	rp := d.repo(w, r)
	if rp == nil {
		return nil, nil
	}
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 1 || id > len(rp.prs) {
		dcFail(w, http.StatusNotFound, "pull.NoSuchPullRequestException", "No pull request exists with ID "+r.PathValue("id"))
		return nil, nil
	}
	return rp, rp.prs[id-1]
}

// pull finds the pull request of the path and checks version (the body's
// or the query's): a stale one is a 409, as Data Center's optimistic
// locking answers.
func (d *DataCenter) pull(w http.ResponseWriter, r *http.Request, version *int) (*DCRepo, *DCPR) {
	rp, pr := d.find(w, r)
	if pr == nil {
		return nil, nil
	}
	if version == nil || *version != pr.Version {
		dcFail(w, http.StatusConflict, "pull.PullRequestOutOfDateException",
			"You are attempting to modify a pull request based on out-of-date information.", "currentVersion", pr.Version)
		return nil, nil
	}
	return rp, pr
}

func (d *DataCenter) updatePull(w http.ResponseWriter, r *http.Request) {
	var b dcBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "invalid JSON")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	rp, pr := d.pull(w, r, b.Version)
	if pr == nil {
		return
	}
	if b.Title != nil {
		pr.Title = *b.Title
	}
	if b.Description != nil {
		pr.Desc = *b.Description
	}
	if b.Reviewers != nil {
		pr.Reviewers = b.reviewers()
	}
	pr.Version++
	reply(w, http.StatusOK, d.prJSON(rp, pr))
}

// queryVersion is the version query parameter, nil when absent.
func queryVersion(r *http.Request) *int {
	v, err := strconv.Atoi(r.URL.Query().Get("version"))
	if err != nil {
		return nil
	}
	return &v
}

func (d *DataCenter) declinePull(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rp, pr := d.pull(w, r, queryVersion(r))
	if pr == nil {
		return
	}
	if pr.State != "OPEN" {
		dcFail(w, http.StatusConflict, "pull.InvalidPullRequestStateException", "The pull request is not open")
		return
	}
	pr.State, pr.AutoMerge = "DECLINED", false
	pr.Version++
	reply(w, http.StatusOK, d.prJSON(rp, pr))
}

func (d *DataCenter) comment(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Text string `json:"text"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Text == "" {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "text is required")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, pr := d.find(w, r)
	if pr == nil {
		return
	}
	pr.Comments = append(pr.Comments, b.Text)
	reply(w, http.StatusCreated, map[string]any{"id": len(pr.Comments), "text": b.Text, "version": 0})
}

// autoMerge schedules the merge of an open pull request for when its
// source commit's builds succeed (Data Center 8.15 and later).
func (d *DataCenter) autoMerge(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rp := d.repo(w, r)
	if rp == nil {
		return
	}
	id, _ := strconv.Atoi(r.PathValue("id"))
	if id < 1 || id > len(rp.prs) || rp.prs[id-1].State != "OPEN" {
		dcFail(w, http.StatusConflict, "pull.InvalidPullRequestStateException", "Auto-merge can only be enabled on an open pull request")
		return
	}
	pr := rp.prs[id-1]
	pr.AutoMerge = true
	d.settle(rp, pr)
	reply(w, http.StatusOK, map[string]any{"autoMergeEnabled": true})
}

// settle merges pr when auto-merge is on and its source commit has a
// build status, all of them successful.
func (d *DataCenter) settle(rp *DCRepo, pr *DCPR) {
	sts := d.statuses[rp.head(pr)]
	if pr.AutoMerge && pr.State == "OPEN" && len(sts) > 0 &&
		!slices.ContainsFunc(sts, func(s Status) bool { return s.State != "SUCCESSFUL" }) {
		if rp.git != nil {
			if _, err := rp.git.Merge(rp.Project, rp.Slug, forgetest.MergeRequest{Base: pr.To, Head: pr.From, Method: "merge",
				Title: fmt.Sprintf("Merge pull request #%d", pr.ID), When: d.clock()}); err != nil {
				return // a conflict leaves it open, auto-merge on
			}
		}
		pr.State, pr.AutoMerge = "MERGED", false
		pr.Version++
	}
}

func (d *DataCenter) postStatus(w http.ResponseWriter, r *http.Request) {
	var st Status
	if err := json.NewDecoder(r.Body).Decode(&st); err != nil || st.Key == "" ||
		!slices.Contains([]string{"SUCCESSFUL", "FAILED", "INPROGRESS"}, st.State) {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "key and state (SUCCESSFUL, FAILED, INPROGRESS) are required")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	sha := r.PathValue("sha")
	d.putStatus(sha, st)
	for _, rp := range d.repos {
		for _, pr := range rp.prs {
			if rp.head(pr) == sha {
				d.settle(rp, pr)
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d *DataCenter) listStatuses(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var items []any
	for _, st := range d.statuses[r.PathValue("sha")] {
		items = append(items, map[string]any{"key": st.Key, "state": st.State, "name": st.Name})
	}
	d.dcPage(w, r, items)
}

func (d *DataCenter) getPull(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rp, pr := d.find(w, r)
	if pr == nil {
		return
	}
	reply(w, http.StatusOK, d.prJSON(rp, pr))
}

// activities lists a pull request's comments as COMMENTED activities,
// newest first, as Data Center does.
func (d *DataCenter) activities(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, pr := d.find(w, r)
	if pr == nil {
		return
	}
	var items []any
	cs := pr.Comments
	for i := len(cs) - 1; i >= 0; i-- {
		items = append(items, map[string]any{"action": "COMMENTED",
			"comment": map[string]any{"id": i + 1, "text": cs[i], "author": map[string]any{"name": d.login}}})
	}
	d.dcPage(w, r, items)
}

// deleteBranch records the branch the body names (no git is modelled).
func (d *DataCenter) deleteBranch(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.Name == "" {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "name is required")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if rp := d.repo(w, r); rp != nil {
		name := strings.TrimPrefix(b.Name, "refs/heads/")
		if rp.git != nil {
			if err := rp.git.DeleteBranch(rp.Project, rp.Slug, name); err != nil {
				dcFail(w, http.StatusNotFound, "repository.NoSuchBranchException", "Branch "+name+" does not exist")
				return
			}
		}
		rp.DeletedBranches = append(rp.DeletedBranches, name)
		w.WriteHeader(http.StatusNoContent)
	}
}

// putStatus keeps st on sha, replacing the status with its key: Data
// Center keeps one per key and commit.
func (d *DataCenter) putStatus(sha string, st Status) {
	for i, old := range d.statuses[sha] {
		if old.Key == st.Key {
			d.statuses[sha][i] = st
			return
		}
	}
	d.statuses[sha] = append(d.statuses[sha], st)
}
