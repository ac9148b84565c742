package azuretest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

func (s *Server) prJSON(pr *PR, listed bool) map[string]any {
	desc := pr.Description
	if listed && len([]rune(desc)) > listedDescription {
		desc = string([]rune(desc)[:listedDescription])
	}
	labels := []map[string]any{}
	for i, l := range pr.Labels {
		labels = append(labels, map[string]any{"id": strconv.Itoa(i + 1), "name": l, "active": true})
	}
	reviewers := []map[string]any{}
	for _, id := range pr.Reviewers {
		reviewers = append(reviewers, map[string]any{"id": id, "vote": 0})
	}
	out := map[string]any{"pullRequestId": pr.ID, "codeReviewId": pr.ID, "status": pr.Status, "title": pr.Title,
		"description": desc, "sourceRefName": pr.Source, "targetRefName": pr.Target, "isDraft": pr.IsDraft,
		"createdBy": refJSON(pr.CreatedBy), "creationDate": pr.Created.UTC().Format(time.RFC3339Nano),
		"labels": labels, "reviewers": reviewers, "mergeStatus": "succeeded",
		"repository": map[string]any{"name": s.repo, "webUrl": s.webURL(), "project": map[string]any{"name": s.project}},
		"url":        s.URL() + "/_apis/git/repositories/" + s.repo + "/pullRequests/" + strconv.Itoa(pr.ID)}
	if !pr.Closed.IsZero() {
		out["closedDate"] = pr.Closed.UTC().Format(time.RFC3339Nano)
	}
	if pr.AutoCompleteSetBy != "" {
		out["autoCompleteSetBy"] = map[string]any{"id": pr.AutoCompleteSetBy}
	}
	if pr.Fork != "" {
		out["forkSource"] = map[string]any{"name": pr.Source, "repository": map[string]any{"name": pr.Fork}}
	}
	return out
}

func (s *Server) pullRequests(w http.ResponseWriter, r *http.Request, me Identity, rest []string) {
	if len(rest) == 0 {
		switch r.Method {
		case http.MethodGet:
			s.listPRs(w, r)
		case http.MethodPost:
			s.createPR(w, r, me)
		default:
			writeErr(w, http.StatusMethodNotAllowed, "method", "ArgumentException")
		}
		return
	}
	id, _ := strconv.Atoi(rest[0])
	pr := s.pr(id)
	if pr == nil {
		writeErr(w, http.StatusNotFound, "TF401180: The requested pull request was not found.", "GitPullRequestNotFoundException")
		return
	}
	switch {
	case len(rest) == 1 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, s.prJSON(pr, false))
	case len(rest) == 1 && r.Method == http.MethodPatch:
		s.updatePR(w, r, pr)
	case len(rest) == 2 && rest[1] == "labels" && r.Method == http.MethodPost:
		var in struct{ Name string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
			writeErr(w, http.StatusBadRequest, "name is required", "ArgumentException")
			return
		}
		if !slices.ContainsFunc(pr.Labels, func(l string) bool { return strings.EqualFold(l, in.Name) }) {
			pr.Labels = append(pr.Labels, in.Name)
		}
		writeJSON(w, http.StatusOK, map[string]any{"name": in.Name, "active": true})
	case len(rest) == 3 && rest[1] == "reviewers" && r.Method == http.MethodPut:
		if !slices.ContainsFunc(s.identities, func(i Identity) bool { return i.ID == rest[2] }) {
			writeErr(w, http.StatusBadRequest, "TF401181: The reviewer "+rest[2]+" was not found.", "InvalidArgumentValueException")
			return
		}
		if !slices.Contains(pr.Reviewers, rest[2]) {
			pr.Reviewers = append(pr.Reviewers, rest[2])
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": rest[2], "vote": 0})
	case len(rest) == 2 && rest[1] == "threads":
		s.threads(w, r, me, pr)
	default:
		writeErr(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, "InvalidControllerException")
	}
}

// listPRs lists by searchCriteria, newest first, in pages of $top/$skip.
func (s *Server) listPRs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("searchCriteria.status")
	if status == "" {
		status = "active"
	}
	var minTime time.Time
	if v := q.Get("searchCriteria.minTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeErr(w, http.StatusBadRequest, "searchCriteria.minTime: "+err.Error(), "ArgumentException")
			return
		}
		minTime = t
	}
	var out []map[string]any
	for i := len(s.prs) - 1; i >= 0; i-- {
		pr := s.prs[i]
		switch {
		case status != "all" && pr.Status != status,
			q.Get("searchCriteria.sourceRefName") != "" && pr.Source != q.Get("searchCriteria.sourceRefName"),
			q.Get("searchCriteria.targetRefName") != "" && pr.Target != q.Get("searchCriteria.targetRefName"),
			q.Get("searchCriteria.creatorId") != "" && !strings.EqualFold(pr.CreatedBy.ID, q.Get("searchCriteria.creatorId")),
			pr.Created.Before(minTime):
			continue
		}
		out = append(out, s.prJSON(pr, true))
	}
	from, to := s.page(r, len(out))
	list(w, out[from:to])
}

func (s *Server) createPR(w http.ResponseWriter, r *http.Request, me Identity) {
	var in struct {
		SourceRefName, TargetRefName, Title, Description string
		IsDraft                                          bool
		Labels                                           []struct{ Name string }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error(), "ArgumentException")
		return
	}
	if len([]rune(in.Description)) > maxDescription {
		writeErr(w, http.StatusBadRequest, "TF401182: The description of the pull request is longer than 4000 characters.", "InvalidArgumentValueException")
		return
	}
	if s.sha(in.SourceRefName) == "" || s.sha(in.TargetRefName) == "" {
		writeErr(w, http.StatusBadRequest, "TF401398: The pull request cannot be activated because the source and/or the target branch no longer exists, or the requested refs are not branches", "InvalidArgumentValueException")
		return
	}
	for _, pr := range s.prs {
		// One active pull request per source and target branch, of this
		// repository: a fork's branch of the same name is another source.
		if pr.Status == "active" && pr.Fork == "" && pr.Source == in.SourceRefName && pr.Target == in.TargetRefName {
			writeErr(w, http.StatusConflict, "TF401179: An active pull request for the source and target branch already exists.", "GitPullRequestExistsException")
			return
		}
	}
	pr := s.open(me, in.SourceRefName, in.TargetRefName, in.Title, in.Description, in.IsDraft)
	for _, l := range in.Labels {
		pr.Labels = append(pr.Labels, l.Name)
	}
	writeJSON(w, http.StatusCreated, s.prJSON(pr, false))
}

func (s *Server) updatePR(w http.ResponseWriter, r *http.Request, pr *PR) {
	var in struct {
		Title, Description, Status *string
		IsDraft                    *bool
		AutoCompleteSetBy          *struct{ ID string }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error(), "ArgumentException")
		return
	}
	if in.Description != nil && len([]rune(*in.Description)) > maxDescription {
		writeErr(w, http.StatusBadRequest, "TF401182: The description of the pull request is longer than 4000 characters.", "InvalidArgumentValueException")
		return
	}
	if in.Title != nil {
		pr.Title = *in.Title
	}
	if in.Description != nil {
		pr.Description = *in.Description
	}
	if in.IsDraft != nil {
		pr.IsDraft = *in.IsDraft
	}
	if in.AutoCompleteSetBy != nil {
		pr.AutoCompleteSetBy = in.AutoCompleteSetBy.ID
	}
	if in.Status != nil {
		switch *in.Status {
		case "abandoned", "completed":
			pr.Status, pr.Closed = *in.Status, s.clock()
		case "active":
			pr.Status, pr.Closed = "active", time.Time{}
		default:
			writeErr(w, http.StatusBadRequest, "status "+*in.Status, "InvalidArgumentValueException")
			return
		}
	}
	writeJSON(w, http.StatusOK, s.prJSON(pr, false))
}

// threads lists a pull request's comment threads and starts one.
func (s *Server) threads(w http.ResponseWriter, r *http.Request, me Identity, pr *PR) {
	if r.Method == http.MethodPost {
		var in struct {
			Comments []struct{ Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Comments) == 0 {
			writeErr(w, http.StatusBadRequest, "comments are required", "ArgumentException")
			return
		}
		var th []Comment
		for _, c := range in.Comments {
			th = append(th, Comment{Content: c.Content, Author: me})
		}
		pr.Threads = append(pr.Threads, th)
		writeJSON(w, http.StatusOK, map[string]any{"id": len(pr.Threads), "status": "active"})
		return
	}
	var out []map[string]any
	for i, th := range pr.Threads {
		var cs []map[string]any
		for j, c := range th {
			cs = append(cs, map[string]any{"id": j + 1, "content": c.Content, "author": refJSON(c.Author), "commentType": "text"})
		}
		out = append(out, map[string]any{"id": i + 1, "status": "active", "comments": cs})
	}
	list(w, out)
}
