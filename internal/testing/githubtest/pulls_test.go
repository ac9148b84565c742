package githubtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestCreateAndGet(t *testing.T) {
	e := setup(t, nil)
	sha := e.branch("imagebot/nginx", "1.26.1")
	pr := e.createPR("imagebot/nginx")
	got := map[string]any{
		"number": pr.GetNumber(), "state": pr.GetState(), "head": pr.GetHead().GetRef(),
		"headSHA": pr.GetHead().GetSHA(), "base": pr.GetBase().GetRef(), "mergeable": pr.GetMergeable(),
		"mergeableState": pr.GetMergeableState(), "merged": pr.GetMerged(), "user": pr.GetUser().GetLogin(),
		"html": pr.GetHTMLURL(), "hasNodeID": pr.GetNodeID() != "", "commits": pr.GetCommits(),
	}
	want := map[string]any{
		"number": 1, "state": "open", "head": "imagebot/nginx", "headSHA": sha, "base": "main",
		"mergeable": true, "mergeableState": "clean", "merged": false, "user": "github-actions[bot]",
		"html": e.fake.URL() + "/acme/apps/pull/1", "hasNodeID": true, "commits": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("created PR (-want +got):\n%s", diff)
	}
	// A push to the branch moves the PR's head, as on GitHub.
	sha2 := e.commit("imagebot/nginx", "imagebot/nginx", "README.md", "x\n")
	again, _, err := e.gh.PullRequests.Get(e.ctx, "acme", "apps", 1)
	if err != nil {
		t.Fatal(err)
	}
	if again.GetHead().GetSHA() != sha2 || again.GetCommits() != 2 {
		t.Errorf("after push: head %s, commits %d; want %s, 2", again.GetHead().GetSHA(), again.GetCommits(), sha2)
	}
	if got := e.fake.Writes(); got != 1 {
		t.Errorf("Writes() = %d, want 1", got)
	}
}

func TestCreateValidation(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	e.gitRun("branch", "imagebot/noop", "main")
	tests := []struct {
		name string
		in   github.NewPullRequest
		want []github.Error
	}{
		{"duplicate", github.NewPullRequest{Title: github.String("again"), Head: github.String("imagebot/nginx"), Base: github.String("main")},
			[]github.Error{{Resource: "PullRequest", Code: "custom", Message: "A pull request already exists for acme:imagebot/nginx."}}},
		{"duplicate owner-qualified", github.NewPullRequest{Title: github.String("again"), Head: github.String("acme:imagebot/nginx"), Base: github.String("main")},
			[]github.Error{{Resource: "PullRequest", Code: "custom", Message: "A pull request already exists for acme:imagebot/nginx."}}},
		{"no commits", github.NewPullRequest{Title: github.String("noop"), Head: github.String("imagebot/noop"), Base: github.String("main")},
			[]github.Error{{Resource: "PullRequest", Code: "custom", Message: "No commits between main and imagebot/noop"}}},
		{"missing head branch", github.NewPullRequest{Title: github.String("x"), Head: github.String("imagebot/gone"), Base: github.String("main")},
			[]github.Error{{Resource: "PullRequest", Field: "head", Code: "invalid"}}},
		{"missing base branch", github.NewPullRequest{Title: github.String("x"), Head: github.String("imagebot/nginx"), Base: github.String("develop")},
			[]github.Error{{Resource: "PullRequest", Field: "base", Code: "invalid"}}},
		{"no title", github.NewPullRequest{Head: github.String("imagebot/nginx"), Base: github.String("main")},
			[]github.Error{{Resource: "PullRequest", Field: "title", Code: "missing_field"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.gh.PullRequests.Create(e.ctx, "acme", "apps", &tc.in)
			er := errorResponse(t, err, http.StatusUnprocessableEntity)
			if er.Message != "Validation Failed" {
				t.Errorf("message %q", er.Message)
			}
			if diff := cmp.Diff(tc.want, er.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(e.fake.PRs("acme", "apps")); n != 1 {
		t.Errorf("%d PRs, want 1", n)
	}
}

func TestListPagination(t *testing.T) {
	e := setup(t, []Option{WithPerPage(2)})
	for _, tag := range []string{"a", "b", "c", "d", "e"} {
		e.branch("imagebot/"+tag, tag)
		e.createPR("imagebot/" + tag)
	}
	var numbers []int
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	pages := 0
	for {
		prs, resp, err := e.gh.PullRequests.List(e.ctx, "acme", "apps", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if pages == 1 && resp.LastPage != 3 {
			t.Errorf("LastPage = %d, want 3", resp.LastPage)
		}
		for _, pr := range prs {
			numbers = append(numbers, pr.GetNumber())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if diff := cmp.Diff([]int{5, 4, 3, 2, 1}, numbers); diff != "" {
		t.Errorf("numbers over %d pages, newest first (-want +got):\n%s", pages, diff)
	}

	tests := []struct {
		name string
		opts github.PullRequestListOptions
		want []int
	}{
		{"head with owner", github.PullRequestListOptions{Head: "acme:imagebot/b"}, []int{2}},
		// GitHub ignores a head filter without "owner:"; so does the fake.
		{"head without owner is ignored", github.PullRequestListOptions{Head: "imagebot/b", ListOptions: github.ListOptions{PerPage: 1}}, []int{5}},
		{"other owner", github.PullRequestListOptions{Head: "someone:imagebot/b"}, nil},
		{"base", github.PullRequestListOptions{Base: "develop"}, nil},
		{"oldest first", github.PullRequestListOptions{Direction: "asc"}, []int{1, 2}},
		{"closed", github.PullRequestListOptions{State: "closed"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prs, _, err := e.gh.PullRequests.List(e.ctx, "acme", "apps", &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, pr := range prs {
				got = append(got, pr.GetNumber())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCloseVersusMerge(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	e.commit("imagebot/redis", "main", "apps/redis.yaml", "image: redis:7.2.5\n")
	e.createPR("imagebot/nginx")
	e.createPR("imagebot/redis")
	if err := e.fake.ClosePR("acme", "apps", 1); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.MergePR("acme", "apps", 2); err != nil {
		t.Fatal(err)
	}
	if got := e.gitRun("show", "main:apps/redis.yaml"); got != "image: redis:7.2.5" {
		t.Errorf("main after merge has %q", got)
	}
	if parents := strings.Fields(e.gitRun("show", "-s", "--format=%P", "main")); len(parents) != 2 {
		t.Errorf("merge commit has parents %v, want 2", parents)
	}
	for n, want := range map[int]bool{1: false, 2: true} {
		pr, _, err := e.gh.PullRequests.Get(e.ctx, "acme", "apps", n)
		if err != nil {
			t.Fatal(err)
		}
		if pr.GetState() != "closed" || pr.GetMerged() != want || (pr.MergedAt != nil) != want {
			t.Errorf("#%d: state %s merged %v merged_at %v; want closed, %v", n, pr.GetState(), pr.GetMerged(), pr.MergedAt, want)
		}
	}
	// List results carry merged_at but not merged, as on GitHub.
	prs, _, err := e.gh.PullRequests.List(e.ctx, "acme", "apps", &github.PullRequestListOptions{State: "closed"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range prs {
		if pr.Merged != nil || (pr.MergedAt != nil) != (pr.GetNumber() == 2) {
			t.Errorf("listed #%d: merged %v merged_at %v", pr.GetNumber(), pr.Merged, pr.MergedAt)
		}
	}
	if err := e.fake.MergePR("acme", "apps", 1); err == nil {
		t.Error("MergePR of a closed PR succeeded")
	}
}

func TestReopen(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	reopen := func() error {
		_, _, err := e.gh.PullRequests.Edit(e.ctx, "acme", "apps", 1, &github.PullRequest{State: github.String("open")})
		return err
	}
	if _, _, err := e.gh.PullRequests.Edit(e.ctx, "acme", "apps", 1, &github.PullRequest{State: github.String("closed")}); err != nil {
		t.Fatal(err)
	}
	// New commits on top of the closed head: reopening is fine.
	e.commit("imagebot/nginx", "imagebot/nginx", "README.md", "more\n")
	if err := reopen(); err != nil {
		t.Fatalf("reopen after a fast-forward: %v", err)
	}
	if err := e.fake.ClosePR("acme", "apps", 1); err != nil {
		t.Fatal(err)
	}
	e.branch("imagebot/nginx", "1.27.0") // force-push: a new commit off main
	er := errorResponse(t, reopen(), http.StatusUnprocessableEntity)
	if msg := er.Errors[0].Message; !strings.Contains(msg, "force-pushed or recreated") {
		t.Errorf("reopen after force-push: %q", msg)
	}
	e.gitRun("update-ref", "-d", "refs/heads/imagebot/nginx")
	er = errorResponse(t, reopen(), http.StatusUnprocessableEntity)
	if msg := er.Errors[0].Message; !strings.Contains(msg, "has been deleted") {
		t.Errorf("reopen without branch: %q", msg)
	}
}

func TestEditAndDeleteBranch(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	pr, _, err := e.gh.PullRequests.Edit(e.ctx, "acme", "apps", 1, &github.PullRequest{
		Title: github.String("Update nginx to 1.26.2"), Body: github.String("new body"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetTitle() != "Update nginx to 1.26.2" || pr.GetBody() != "new body" || pr.GetState() != "open" {
		t.Errorf("edited PR: %q %q %s", pr.GetTitle(), pr.GetBody(), pr.GetState())
	}
	if _, err := e.gh.Git.DeleteRef(e.ctx, "acme", "apps", "refs/heads/imagebot/nginx"); err != nil {
		t.Fatal(err)
	}
	// GitHub closes an open PR whose head branch is deleted.
	if got := e.fake.PRs("acme", "apps")[0].State; got != "closed" {
		t.Errorf("PR state after deleting its branch: %s", got)
	}
	_, err = e.gh.Git.DeleteRef(e.ctx, "acme", "apps", "refs/heads/imagebot/nginx")
	if er := errorResponse(t, err, http.StatusUnprocessableEntity); er.Message != "Reference does not exist" {
		t.Errorf("second delete: %q", er.Message)
	}
	_, _, err = e.gh.Git.GetRef(e.ctx, "acme", "apps", "refs/heads/imagebot/nginx")
	errorResponse(t, err, http.StatusNotFound)
	ref, _, err := e.gh.Git.GetRef(e.ctx, "acme", "apps", "refs/heads/main")
	if err != nil || ref.GetObject().GetSHA() != e.gitRun("rev-parse", "main") {
		t.Errorf("GetRef main: %v %v", ref, err)
	}
}

func TestMergeAPI(t *testing.T) {
	e := setup(t, nil, WithDeleteBranchOnMerge())
	e.branch("imagebot/a", "1.26.1")
	e.branch("imagebot/b", "1.27.0") // same line as a: conflicts once a lands
	e.createPR("imagebot/a")
	e.createPR("imagebot/b")
	opts := &github.PullRequestOptions{MergeMethod: "squash", SHA: strings.Repeat("0", 40)}
	_, _, err := e.gh.PullRequests.Merge(e.ctx, "acme", "apps", 1, "", opts)
	errorResponse(t, err, http.StatusConflict)
	opts.SHA = e.gitRun("rev-parse", "imagebot/a")
	res, _, err := e.gh.PullRequests.Merge(e.ctx, "acme", "apps", 1, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.GetMerged() || res.GetSHA() != e.gitRun("rev-parse", "main") {
		t.Errorf("merge result %+v, main at %s", res, e.gitRun("rev-parse", "main"))
	}
	got := e.gitRun("log", "-1", "--format=%s|%P", "main")
	if title, parents, _ := strings.Cut(got, "|"); title != "Update imagebot/a (#1)" || len(strings.Fields(parents)) != 1 {
		t.Errorf("squash commit %q: want title \"Update imagebot/a (#1)\" and one parent", got)
	}
	if _, ok := BareRepos(e.git.Dir).BranchSHA("acme", "apps", "imagebot/a"); ok {
		t.Error("head branch survived delete_branch_on_merge")
	}
	pr, _, err := e.gh.PullRequests.Get(e.ctx, "acme", "apps", 2)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetMergeable() || pr.GetMergeableState() != "dirty" {
		t.Errorf("conflicting PR: mergeable %v state %q", pr.GetMergeable(), pr.GetMergeableState())
	}
	_, _, err = e.gh.PullRequests.Merge(e.ctx, "acme", "apps", 2, "", nil)
	errorResponse(t, err, http.StatusMethodNotAllowed)
	_, _, err = e.gh.PullRequests.Merge(e.ctx, "acme", "apps", 1, "", nil)
	errorResponse(t, err, http.StatusMethodNotAllowed) // already merged
}

func TestLabelsCommentsReviewers(t *testing.T) {
	e := setup(t, []Option{WithPerPage(2)})
	sha := e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	labels, _, err := e.gh.Issues.AddLabelsToIssue(e.ctx, "acme", "apps", 1, []string{"dependencies", "imagebot"})
	if err != nil || len(labels) != 2 {
		t.Fatalf("labels %v, %v", labels, err)
	}
	if _, _, err := e.gh.Issues.AddLabelsToIssue(e.ctx, "acme", "apps", 1, []string{"Dependencies"}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"one", "two", "three"} {
		if _, _, err := e.gh.Issues.CreateComment(e.ctx, "acme", "apps", 1, &github.IssueComment{Body: github.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	var bodies []string
	opts := &github.IssueListCommentsOptions{}
	for {
		cs, resp, err := e.gh.Issues.ListComments(e.ctx, "acme", "apps", 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			bodies = append(bodies, c.GetBody())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if diff := cmp.Diff([]string{"one", "two", "three"}, bodies); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	pr, _, err := e.gh.PullRequests.RequestReviewers(e.ctx, "acme", "apps", 1, github.ReviewersRequest{
		Reviewers: []string{"alice"}, TeamReviewers: []string{"platform"},
	})
	if err != nil || len(pr.RequestedReviewers) != 1 {
		t.Fatalf("request reviewers: %v, %v", pr, err)
	}
	_, _, err = e.gh.PullRequests.RequestReviewers(e.ctx, "acme", "apps", 1, github.ReviewersRequest{Reviewers: []string{"github-actions[bot]"}})
	errorResponse(t, err, http.StatusUnprocessableEntity)
	want := []PR{{
		Number: 1, Author: "github-actions[bot]", Title: "Update imagebot/nginx", Body: "body of imagebot/nginx", Head: "imagebot/nginx", Base: "main",
		State: "open", Labels: []string{"dependencies", "imagebot"}, Reviewers: []string{"alice"},
		TeamReviewers: []string{"platform"}, Comments: []string{"one", "two", "three"}, HeadSHA: sha,
	}}
	if diff := cmp.Diff(want, e.fake.PRs("acme", "apps")); diff != "" {
		t.Errorf("PRs (-want +got):\n%s", diff)
	}
	_, _, err = e.gh.Issues.CreateComment(e.ctx, "acme", "apps", 9, &github.IssueComment{Body: github.String("x")})
	errorResponse(t, err, http.StatusNotFound)
}

// A stranger's fork: a PR from its branch shows the fork as head.repo and
// the stranger as author, does not count as the repository's own PR of
// that branch name, and GET /user says who the stranger is.
func TestForkPullRequest(t *testing.T) {
	e := setup(t, []Option{WithUser("mallory", "mallory-token")})
	if _, err := e.git.CreateRepo("mallory", "apps", map[string][]byte{"x.yaml": []byte("image: nginx:9\n")}, "imagebot/nginx"); err != nil {
		t.Fatal(err)
	}
	e.fake.AddRepo("mallory", "apps", "imagebot/nginx", BareRepos(e.git.Dir), ForkOf("acme", "apps"))
	mallory := client(t, e.fake, "mallory-token")
	pr, _, err := mallory.PullRequests.Create(e.ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String("x"), Head: github.String("mallory:imagebot/nginx"), Base: github.String("main"), Body: github.String("forged"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetHead().GetRepo().GetFullName() != "mallory/apps" || !pr.GetHead().GetRepo().GetFork() || pr.GetBase().GetRepo().GetFullName() != "acme/apps" ||
		pr.GetUser().GetLogin() != "mallory" || pr.GetHead().GetRef() != "imagebot/nginx" || pr.GetHead().GetLabel() != "mallory:imagebot/nginx" {
		t.Errorf("fork PR: head %s %s fork=%v, base %s, user %s", pr.GetHead().GetLabel(), pr.GetHead().GetRepo().GetFullName(),
			pr.GetHead().GetRepo().GetFork(), pr.GetBase().GetRepo().GetFullName(), pr.GetUser().GetLogin())
	}
	// The repository's own branch of the same name still gets its PR.
	e.branch("imagebot/nginx", "1.26.1")
	if own := e.createPR("imagebot/nginx"); own.GetHead().GetRepo().GetFullName() != "acme/apps" || own.GetUser().GetLogin() != "github-actions[bot]" {
		t.Errorf("own PR: %s by %s", own.GetHead().GetRepo().GetFullName(), own.GetUser().GetLogin())
	}
	for head, want := range map[string]int{"acme:imagebot/nginx": 1, "mallory:imagebot/nginx": 1} {
		prs, _, err := e.gh.PullRequests.List(e.ctx, "acme", "apps", &github.PullRequestListOptions{Head: head})
		if err != nil || len(prs) != want {
			t.Errorf("head %s: %d PRs (%v), want %d", head, len(prs), err, want)
		}
	}
	if u, _, err := mallory.Users.Get(e.ctx, ""); err != nil || u.GetLogin() != "mallory" {
		t.Errorf("GET /user as mallory: %v %v", u.GetLogin(), err)
	}
	if _, _, err := e.gh.Users.Get(e.ctx, ""); err == nil {
		t.Error("GET /user with the bot's token succeeded")
	}
}

// GitHub refuses a description or comment over 65,536 characters and a
// title over 256 with 422; exactly at the limit is fine.
func TestTooLong(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	long := strings.Repeat("é", 65537)
	_, _, err := e.gh.PullRequests.Create(e.ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String(strings.Repeat("t", 257)), Head: github.String("imagebot/nginx"), Base: github.String("main"), Body: &long,
	})
	er := errorResponse(t, err, http.StatusUnprocessableEntity)
	want := []github.Error{
		{Resource: "PullRequest", Field: "title", Code: "custom", Message: "title is too long (maximum is 256 characters)"},
		{Resource: "PullRequest", Field: "body", Code: "custom", Message: "body is too long (maximum is 65536 characters)"},
	}
	if diff := cmp.Diff(want, er.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	pr := e.createPR("imagebot/nginx")
	fits := long[:len(long)-len("é")]
	if _, _, err := e.gh.PullRequests.Edit(e.ctx, "acme", "apps", pr.GetNumber(), &github.PullRequest{Body: &fits}); err != nil {
		t.Errorf("edit to exactly 65536 characters: %v", err)
	}
	_, _, err = e.gh.PullRequests.Edit(e.ctx, "acme", "apps", pr.GetNumber(), &github.PullRequest{Body: &long})
	errorResponse(t, err, http.StatusUnprocessableEntity)
	_, _, err = e.gh.Issues.CreateComment(e.ctx, "acme", "apps", pr.GetNumber(), &github.IssueComment{Body: &long})
	errorResponse(t, err, http.StatusUnprocessableEntity)
}
