package githubtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// enableAutoMerge is spelled as the gh CLI spells it, arguments in variables.
const enableAutoMerge = `mutation PullRequestAutoMerge($id: ID!, $mergeMethod: PullRequestMergeMethod) {
  enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: $mergeMethod}) {
    pullRequest { id autoMergeRequest { mergeMethod } }
  }
}`

type gqlResponse struct {
	Data   map[string]any `json:"data"`
	Errors []gqlError     `json:"errors"`
}

// graphql posts a document through go-github, as a client without a
// GraphQL library would.
func (e *env) graphql(query string, vars map[string]any) gqlResponse {
	e.t.Helper()
	req, err := e.gh.NewRequest(http.MethodPost, "graphql", map[string]any{"query": query, "variables": vars})
	if err != nil {
		e.t.Fatal(err)
	}
	var out gqlResponse
	if _, err := e.gh.Do(e.ctx, req, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func TestAutoMerge(t *testing.T) {
	tests := []struct {
		name    string
		opts    []RepoOption
		wantErr string
	}{
		{"not allowed", nil, "Auto merge is not allowed for this repository"},
		{"nothing to wait for", []RepoOption{WithAutoMerge()}, "Pull request is in clean status"},
		{"waits for a check", []RepoOption{WithAutoMerge(), WithRequiredCheck("ci")}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := setup(t, nil, tc.opts...)
			e.branch("imagebot/nginx", "1.26.1")
			pr := e.createPR("imagebot/nginx")
			out := e.graphql(enableAutoMerge, map[string]any{"id": pr.GetNodeID(), "mergeMethod": "SQUASH"})
			var gotErr string
			if len(out.Errors) > 0 {
				gotErr = out.Errors[0].Message
			}
			if gotErr != tc.wantErr {
				t.Fatalf("error %q, want %q", gotErr, tc.wantErr)
			}
			if got := e.fake.PRs("acme", "apps")[0].AutoMerge; got != (tc.wantErr == "") {
				t.Errorf("AutoMerge = %v", got)
			}
			if got := e.fake.Writes(); got != 2 {
				t.Errorf("Writes() = %d, want 2 (create + mutation)", got)
			}
		})
	}
}

func TestAutoMergeLifecycle(t *testing.T) {
	e := setup(t, nil, WithAutoMerge(), WithRequiredCheck("ci"))
	e.branch("imagebot/nginx", "1.26.1")
	created := e.createPR("imagebot/nginx")
	if got := created.GetMergeableState(); got != "blocked" {
		t.Errorf("mergeable_state %q, want blocked", got)
	}
	out := e.graphql(enableAutoMerge, map[string]any{"id": created.GetNodeID(), "mergeMethod": "SQUASH"})
	want := map[string]any{"enablePullRequestAutoMerge": map[string]any{
		"clientMutationId": nil,
		"pullRequest": map[string]any{
			"id": created.GetNodeID(), "number": 1.0, "state": "OPEN", "url": created.GetHTMLURL(),
			"autoMergeRequest": map[string]any{"mergeMethod": "SQUASH"},
		},
	}}
	// enabledAt is a timestamp; compare the rest.
	req := out.Data["enablePullRequestAutoMerge"].(map[string]any)["pullRequest"].(map[string]any)["autoMergeRequest"].(map[string]any)
	delete(req, "enabledAt")
	if diff := cmp.Diff(want, out.Data); diff != "" || len(out.Errors) > 0 {
		t.Errorf("data (-want +got):\n%s\nerrors: %v", diff, out.Errors)
	}
	pr, _, err := e.gh.PullRequests.Get(e.ctx, "acme", "apps", 1)
	if err != nil || pr.GetAutoMerge().GetMergeMethod() != "squash" {
		t.Errorf("auto_merge %+v, %v", pr.GetAutoMerge(), err)
	}
	// The required check never reports, so the bot cannot merge by REST...
	_, _, err = e.gh.PullRequests.Merge(e.ctx, "acme", "apps", 1, "", nil)
	if er := errorResponse(t, err, http.StatusMethodNotAllowed); !strings.Contains(er.Message, `"ci"`) {
		t.Errorf("merge refused with %q", er.Message)
	}
	// ...but an admin can, with the auto-merge method.
	if err := e.fake.MergePR("acme", "apps", 1); err != nil {
		t.Fatal(err)
	}
	if parents := strings.Fields(e.gitRun("show", "-s", "--format=%P", "main")); len(parents) != 1 {
		t.Errorf("squash merge has parents %v", parents)
	}
	pr, _, _ = e.gh.PullRequests.Get(e.ctx, "acme", "apps", 1)
	if !pr.GetMerged() || pr.AutoMerge != nil || pr.GetMergedBy().GetLogin() != "octocat" {
		t.Errorf("after merge: merged %v auto_merge %v merged_by %q", pr.GetMerged(), pr.AutoMerge, pr.GetMergedBy().GetLogin())
	}

	// Inline arguments work too.
	disable := `mutation { disablePullRequestAutoMerge(input: {pullRequestId: "` + created.GetNodeID() + `"}) { clientMutationId } }`
	if out := e.graphql(disable, nil); len(out.Errors) > 0 {
		t.Errorf("disable: %v", out.Errors)
	}
	if out := e.graphql(enableAutoMerge, map[string]any{"id": "PR_nope"}); len(out.Errors) == 0 || out.Errors[0].Type != "NOT_FOUND" {
		t.Errorf("unknown node: %+v", out)
	}
}
