package gitlabtest_test

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// start is the fake with acme/gitops on a real repository whose branches
// are main and b1..b5, and client-go on it.
func start(t *testing.T, opts ...gitlabtest.Option) (*gitlabtest.Server, *gitlab.Client) {
	gl, c, _ := startAt(t, opts...)
	return gl, c
}

// startAt is start, and main's commit.
func startAt(t *testing.T, opts ...gitlabtest.Option) (*gitlabtest.Server, *gitlab.Client, string) {
	t.Helper()
	gs, err := gittest.New(gittest.TempDir(t), gitlabtest.DefaultToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	sha, err := gs.CreateRepo("acme", "gitops", map[string][]byte{"a": []byte("a\n")}, "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"b1", "b2", "b3", "b4", "b5"} {
		if out, err := exec.Command("git", "-C", gs.Dir("acme", "gitops"), "branch", b, "main").CombinedOutput(); err != nil {
			t.Fatalf("%s: %s", err, out)
		}
	}
	gl := gitlabtest.New(opts...)
	t.Cleanup(gl.Close)
	gl.AddProject("acme/gitops", "main", githubtest.BareRepos(gs.Dir))
	c, err := gitlab.NewClient(gitlabtest.DefaultToken, gitlab.WithBaseURL(gl.URL()), gitlab.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	return gl, c, sha
}

func status(err error) int {
	var er *gitlab.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	return 0
}

func create(c *gitlab.Client, source string) (*gitlab.MergeRequest, error) {
	mr, _, err := c.MergeRequests.CreateMergeRequest("acme/gitops", &gitlab.CreateMergeRequestOptions{
		Title: gitlab.Ptr("Update " + source), SourceBranch: &source, TargetBranch: gitlab.Ptr("main")})
	return mr, err
}

// TestMergeRequests: GitLab's answers to client-go: pagination headers,
// 409 on a second open MR from a branch, 400 and 422 bodies, merged and
// closed apart, system notes apart from people's.
func TestMergeRequests(t *testing.T) {
	gl, c := start(t, gitlabtest.WithPerPage(2))
	for _, b := range []string{"b1", "b2", "b3", "b4", "b5"} {
		if _, err := create(c, b); err != nil {
			t.Fatal(err)
		}
	}
	_, err := create(c, "b1")
	var er *gitlab.ErrorResponse
	if !errors.As(err, &er) || er.StatusCode != http.StatusConflict || !strings.Contains(string(er.Body), "Another open merge request already exists for this source branch: !1") {
		t.Errorf("second MR from b1: %v", err)
	}
	if _, err := create(c, "nope"); status(err) != http.StatusBadRequest {
		t.Errorf("MR from a missing branch: %v, want 400", err)
	}
	if _, err := create(c, "main"); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("MR from main into main: %v, want 422", err)
	}

	opts := &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr("opened"), ListOptions: gitlab.ListOptions{PerPage: 100, Page: 2}}
	mrs, resp, err := c.MergeRequests.ListProjectMergeRequests("acme/gitops", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(mrs) != 2 || resp.TotalItems != 5 || resp.TotalPages != 3 || resp.NextPage != 3 || resp.PreviousPage != 1 || resp.ItemsPerPage != 2 {
		t.Errorf("page 2: %d MRs, total %d pages %d next %d prev %d per %d", len(mrs), resp.TotalItems, resp.TotalPages, resp.NextPage, resp.PreviousPage, resp.ItemsPerPage)
	}
	if link := resp.Header.Get("Link"); !strings.Contains(link, `rel="next"`) || !strings.Contains(link, `rel="last"`) {
		t.Errorf("Link: %s", link)
	}

	if err := gl.CloseMR("acme/gitops", 1); err != nil {
		t.Fatal(err)
	}
	if err := gl.MergeMR("acme/gitops", 2); err != nil {
		t.Fatal(err)
	}
	for state, want := range map[string]int{"closed": 1, "merged": 1, "opened": 3, "all": 5} {
		mrs, _, err := c.MergeRequests.ListProjectMergeRequests("acme/gitops", &gitlab.ListProjectMergeRequestsOptions{State: &state, ListOptions: gitlab.ListOptions{PerPage: 100}})
		if err != nil || len(mrs) != min(want, 2) {
			t.Errorf("state %s: %d, %v", state, len(mrs), err)
		}
	}
	if _, _, err := c.Notes.CreateMergeRequestNote("acme/gitops", 1, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.Ptr("hi")}); err != nil {
		t.Fatal(err)
	}
	if notes := gl.MRs("acme/gitops")[0].Notes; len(notes) != 1 || notes[0] != "hi" {
		t.Errorf("notes of !1 (closed: a system note besides): %q", notes)
	}
}

// TestAutoMergeChecking: auto-merge right after creation is a 405 while
// GitLab checks, then works.
func TestAutoMergeChecking(t *testing.T) {
	gl, c := start(t, gitlabtest.WithMergeChecks(2))
	if _, err := create(c, "b1"); err != nil {
		t.Fatal(err)
	}
	auto := &gitlab.AcceptMergeRequestOptions{AutoMerge: gitlab.Ptr(true)}
	for range 2 {
		if _, _, err := c.MergeRequests.AcceptMergeRequest("acme/gitops", 1, auto); status(err) != http.StatusMethodNotAllowed {
			t.Fatalf("auto-merge while checking: %v, want 405", err)
		}
	}
	if _, _, err := c.MergeRequests.AcceptMergeRequest("acme/gitops", 1, auto); err != nil {
		t.Fatal(err)
	}
	if mr := gl.MRs("acme/gitops")[0]; !mr.AutoMerge || mr.State != "opened" {
		t.Errorf("after auto-merge: %+v", mr)
	}
}

// TestTokens: 401 unknown and revoked, 403 for a read_api write and for a
// Reporter, 404 for a project not there.
func TestTokens(t *testing.T) {
	gl, _ := start(t, gitlabtest.WithUser("reader", "glpat-r", gitlabtest.Developer, "read_api"), gitlabtest.WithUser("rep", "glpat-rep", gitlabtest.Reporter))
	as := func(tok string) *gitlab.Client {
		c, _ := gitlab.NewClient(tok, gitlab.WithBaseURL(gl.URL()), gitlab.WithoutRetries())
		return c
	}
	if _, _, err := as("glpat-nope").Users.CurrentUser(); status(err) != http.StatusUnauthorized {
		t.Errorf("unknown token: %v", err)
	}
	gl.Revoke("glpat-r")
	if _, _, err := as("glpat-r").Users.CurrentUser(); status(err) != http.StatusUnauthorized {
		t.Errorf("revoked token: %v", err)
	}
	if _, err := create(as("glpat-rep"), "b1"); status(err) != http.StatusForbidden {
		t.Errorf("Reporter: %v", err)
	}
	if _, _, err := as(gitlabtest.DefaultToken).Projects.GetProject("acme/none", nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Errorf("missing project: %v", err)
	}
	if u, _, err := as(gitlabtest.DefaultToken).Users.CurrentUser(); err != nil || u.Username != gitlabtest.DefaultBot {
		t.Errorf("GET /user: %v, %v", u, err)
	}
}

// TestPipelines: jobs show among the commit's statuses, each name's
// latest; the pipeline's status sums its jobs up.
func TestPipelines(t *testing.T) {
	gl, c, sha := startAt(t)
	if err := gl.AddPipeline("acme/gitops", sha, map[string]string{"test": "failed", "lint": "success"}); err != nil {
		t.Fatal(err)
	}
	if err := gl.AddPipeline("acme/gitops", sha, map[string]string{"test": "success"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Commits.SetCommitStatus("acme/gitops", sha, &gitlab.SetCommitStatusOptions{State: gitlab.Running, Name: gitlab.Ptr("flux")}); err != nil {
		t.Fatal(err)
	}
	sts, _, err := c.Commits.GetCommitStatuses("acme/gitops", sha, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, st := range sts {
		got[st.Name] = st.Status
	}
	if len(sts) != 3 || got["test"] != "success" || got["lint"] != "success" || got["flux"] != "running" {
		t.Errorf("statuses: %v", got)
	}
	pipes, _, err := c.Pipelines.ListProjectPipelines("acme/gitops", &gitlab.ListProjectPipelinesOptions{SHA: &sha})
	if err != nil || len(pipes) != 2 || pipes[0].Status != "success" || pipes[1].Status != "failed" {
		t.Errorf("pipelines, newest first: %v %v", pipes, err)
	}
}
