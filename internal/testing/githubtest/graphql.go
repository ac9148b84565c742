package githubtest

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// Auto-merge has no REST endpoint, only the GraphQL mutations
// enablePullRequestAutoMerge and disablePullRequestAutoMerge. This is not a
// GraphQL server: it recognises those two mutations by name and reads their
// pullRequestId and mergeMethod arguments, inline or from variables, which is
// how clients spell them. Any other document is answered with an error.
var (
	gqlMutation = regexp.MustCompile(`\b(enablePullRequestAutoMerge|disablePullRequestAutoMerge)\s*\(`)
	// The \b after an enum keeps "$mergeMethod: PullRequestMergeMethod"
	// in a variable definition from reading as mergeMethod: P.
	gqlPullRequest = regexp.MustCompile(`pullRequestId\s*:\s*(?:"([^"]*)"|\$(\w+))`)
	gqlMergeMethod = regexp.MustCompile(`mergeMethod\s*:\s*(?:([A-Z]+)\b|\$(\w+))`)
)

type gqlError struct {
	Type    string   `json:"type,omitempty"`
	Path    []string `json:"path,omitempty"`
	Message string   `json:"message"`
}

// gqlArg is an argument's inline value or the variable it names.
func gqlArg(re *regexp.Regexp, query string, vars map[string]any) string {
	m := re.FindStringSubmatch(query)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return m[1]
	}
	v, _ := vars[m[2]].(string)
	return v
}

func (s *Server) graphql(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if !decode(w, req, &in) {
		return
	}
	m := gqlMutation.FindStringSubmatch(in.Query)
	if m == nil {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []gqlError{{
			Message: "githubtest: unsupported GraphQL document; only enablePullRequestAutoMerge and disablePullRequestAutoMerge are served",
		}}})
		return
	}
	field := m[1]
	fail := func(typ, format string, args ...any) {
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   map[string]any{field: nil},
			"errors": []gqlError{{Type: typ, Path: []string{field}, Message: fmt.Sprintf(format, args...)}},
		})
	}
	id := gqlArg(gqlPullRequest, in.Query, in.Variables)
	method := gqlArg(gqlMergeMethod, in.Query, in.Variables)
	if method == "" {
		method = "MERGE"
	}
	if method != "MERGE" && method != "SQUASH" && method != "REBASE" {
		fail("INVALID", "Argument 'mergeMethod' has an invalid value (%s).", method)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, p := s.pullByNodeID(id)
	if p == nil {
		fail("NOT_FOUND", "Could not resolve to a node with the global id of '%s'", id)
		return
	}
	s.sync(r, p, true)
	if field == "disablePullRequestAutoMerge" {
		p.autoMerge = ""
	} else {
		switch {
		case !r.allowAutoMerge:
			fail("UNPROCESSABLE", "Auto merge is not allowed for this repository")
			return
		case p.state != "open":
			fail("UNPROCESSABLE", "Pull request is closed")
			return
		case p.cmp != nil && mergeableState(r, p) == "clean":
			// Nothing to wait for: GitHub wants the client to merge now.
			fail("UNPROCESSABLE", "Pull request is in clean status")
			return
		}
		p.autoMerge, p.autoMergeAt = strings.ToLower(method), s.now()
	}
	p.updated = s.now()
	var request any
	if p.autoMerge != "" {
		request = map[string]any{"enabledAt": stamp(p.autoMergeAt), "mergeMethod": strings.ToUpper(p.autoMerge)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{field: map[string]any{
		"clientMutationId": nil,
		"pullRequest": map[string]any{
			"id": pullNodeID(r, p.number), "number": p.number, "state": strings.ToUpper(p.state),
			"url": s.pullJSON(r, p).HTMLURL, "autoMergeRequest": request,
		},
	}}})
}

func (s *Server) pullByNodeID(id string) (*repo, *pull) {
	for _, r := range s.repos {
		for _, p := range r.pulls {
			if pullNodeID(r, p.number) == id {
				return r, p
			}
		}
	}
	return nil, nil
}
