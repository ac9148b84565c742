package azuretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// listedDescription is how much of a description a listing shows.
const listedDescription = 400

// maxDescription is the longest description Azure DevOps keeps.
const maxDescription = 4000

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveGit(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.CountRequest(false) // a write is counted once it is allowed
	if f, ok := s.TakeFault(r.Method, r.URL.RequestURI()); ok {
		f.AddHeader(w)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(f.Status)
		fmt.Fprint(w, f.Body)
		return
	}
	me, token, ok := s.who(w, r)
	if !ok {
		return
	}
	if v := r.URL.Query().Get("api-version"); !strings.HasPrefix(v, "7.") {
		writeErr(w, http.StatusBadRequest, "No api-version was supplied for the \""+r.Method+"\" request. The version must be supplied either as part of the Accept header (e.g. \"application/json; api-version=1.0\") or as a query parameter (e.g. '?api-version=1.0').", "VssVersionNotSpecifiedException")
		return
	}
	if r.Method != http.MethodGet {
		if s.readOnly[token] {
			writeErr(w, http.StatusForbidden, "TF401027: You need the Git 'PullRequestContribute' permission to perform this action. Details: identity '"+me.DisplayName+"', scope 'repository'.", "GitNeedsPermissionException")
			return
		}
		s.CountWrites(1)
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == Org && parts[1] == "_apis" && parts[2] == "connectionData":
		writeJSON(w, http.StatusOK, map[string]any{"authenticatedUser": identityJSON(me), "authorizedUser": identityJSON(me)})
	case len(parts) == 3 && parts[0] == Org && parts[1] == "_apis" && parts[2] == "identities":
		s.identitiesHandler(w, r)
	case len(parts) >= 6 && parts[0] == Org && parts[2] == "_apis" && parts[3] == "git" && parts[4] == "repositories":
		if parts[1] != s.project || !strings.EqualFold(parts[5], s.repo) {
			writeErr(w, http.StatusNotFound, "TF401019: The Git repository with name or identifier "+parts[5]+" does not exist or you do not have permissions for the operation you are attempting.", "GitRepositoryNotFoundException")
			return
		}
		s.repository(w, r, me, parts[6:])
	default:
		writeErr(w, http.StatusNotFound, "The controller for path '"+r.URL.Path+"' was not found or does not implement IController.", "InvalidControllerException")
	}
}

func identityJSON(id Identity) map[string]any {
	return map[string]any{"id": id.ID, "providerDisplayName": id.DisplayName,
		"properties": map[string]any{"Account": map[string]any{"$type": "System.String", "$value": id.UniqueName}}}
}

func refJSON(id Identity) map[string]any {
	return map[string]any{"id": id.ID, "displayName": id.DisplayName, "uniqueName": id.UniqueName}
}

// identitiesHandler finds identities by searchFilter=General: a unique
// name, a display name or, for groups, [project]\name, case-insensitive.
func (s *Server) identitiesHandler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("searchFilter") != "General" {
		writeErr(w, http.StatusBadRequest, "searchFilter: want General", "ArgumentException")
		return
	}
	v := q.Get("filterValue")
	var out []map[string]any
	for _, id := range s.identities {
		// A team is [project]\name in the project it belongs to: the
		// repository's (WithGit names it after the git backend's owner).
		team := id == Team && strings.EqualFold(v, "["+s.project+"]\\"+id.DisplayName)
		if team || strings.EqualFold(id.UniqueName, v) || strings.EqualFold(id.DisplayName, v) {
			out = append(out, identityJSON(id))
		}
	}
	list(w, out)
}

func (s *Server) webURL() string {
	return s.URL() + "/" + strings.ReplaceAll(s.project, " ", "%20") + "/_git/" + s.repo
}

func (s *Server) repository(w http.ResponseWriter, r *http.Request, me Identity, rest []string) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": "9a1c0000-0000-4000-8000-000000000e90", "name": s.repo,
			"defaultBranch": s.defBranch, "webUrl": s.webURL(), "remoteUrl": s.webURL(), "isDisabled": false,
			"project": map[string]any{"name": s.project}})
	case len(rest) == 1 && rest[0] == "refs":
		s.refs(w, r)
	case len(rest) == 3 && rest[0] == "commits" && rest[2] == "statuses":
		s.commitStatuses(w, r, me, rest[1])
	case len(rest) >= 1 && rest[0] == "pullrequests":
		s.pullRequests(w, r, me, rest[1:])
	default:
		writeErr(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path, "InvalidControllerException")
	}
}

// refs lists refs by filter (a prefix without refs/), in pages chained by
// x-ms-continuationtoken, and updates them: a new object ID of zeros
// deletes, if the old one is still current.
func (s *Server) refs(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		var upd []struct{ Name, OldObjectID, NewObjectID string }
		if err := json.NewDecoder(r.Body).Decode(&upd); err != nil {
			writeErr(w, http.StatusBadRequest, err.Error(), "ArgumentException")
			return
		}
		var out []map[string]any
		for _, u := range upd {
			cur := s.sha(u.Name)
			ok := cur == u.OldObjectID || (cur == "" && strings.Trim(u.OldObjectID, "0") == "")
			if ok {
				ok = s.setRef(u.Name, u.NewObjectID) == nil
			}
			status := "succeeded"
			if !ok {
				status = "staleOldObjectId"
			}
			out = append(out, map[string]any{"name": u.Name, "success": ok, "updateStatus": status, "newObjectId": u.NewObjectID})
		}
		list(w, out)
		return
	}
	prefix := "refs/" + r.URL.Query().Get("filter")
	names := s.refNames(prefix)
	start := 0
	if tok := r.URL.Query().Get("continuationToken"); tok != "" {
		start = slices.Index(names, tok)
		if start < 0 {
			writeErr(w, http.StatusBadRequest, "invalid continuation token", "ArgumentException")
			return
		}
	}
	end := min(start+s.refPage, len(names))
	if t, err := strconv.Atoi(r.URL.Query().Get("$top")); err == nil && t > 0 {
		end = min(start+t, end)
	}
	if end < len(names) {
		w.Header().Set("x-ms-continuationtoken", names[end])
	}
	var out []map[string]any
	for _, n := range names[start:end] {
		out = append(out, map[string]any{"name": n, "objectId": s.sha(n)})
	}
	list(w, out)
}

// page is the $skip and $top of a listing, $top at most perPage.
func (s *Server) page(r *http.Request, n int) (from, to int) {
	skip, _ := strconv.Atoi(r.URL.Query().Get("$skip"))
	top, err := strconv.Atoi(r.URL.Query().Get("$top"))
	if err != nil || top <= 0 || top > s.perPage {
		top = s.perPage
	}
	from = min(max(skip, 0), n)
	return from, min(from+top, n)
}

// commitStatuses lists a commit's statuses newest first (latestOnly: the
// newest of each genre/name), and adds one.
func (s *Server) commitStatuses(w http.ResponseWriter, r *http.Request, me Identity, sha string) {
	if r.Method == http.MethodPost {
		var in struct {
			State   string
			Context struct{ Name, Genre string }
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Context.Name == "" {
			writeErr(w, http.StatusBadRequest, "context.name is required", "ArgumentException")
			return
		}
		s.statuses[sha] = append(s.statuses[sha], Status{State: in.State, Genre: in.Context.Genre, Name: in.Context.Name, Created: s.clock()})
		writeJSON(w, http.StatusCreated, map[string]any{"state": in.State})
		return
	}
	all := s.statuses[sha]
	var out []map[string]any
	seen := map[string]bool{}
	for i := len(all) - 1; i >= 0; i-- {
		st := all[i]
		key := st.Genre + "/" + st.Name
		if r.URL.Query().Get("latestOnly") == "true" && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, map[string]any{"state": st.State, "creationDate": st.Created.Format(time.RFC3339),
			"context": map[string]any{"name": st.Name, "genre": st.Genre}})
	}
	from, to := s.page(r, len(out))
	list(w, out[from:to])
}
