package giteatest_test

import (
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/testing/giteatest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestSDK: the SDK as everyone creates it (asking GET /api/v1/version
// first) pages through pull requests with Gitea's Link and X-Total-Count,
// and a second open pull request for a branch is Gitea's 409.
func TestSDK(t *testing.T) {
	gs, err := gittest.New(gittest.TempDir(t), giteatest.DefaultToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("acme", "app", map[string][]byte{"a": []byte("a\n")}, "main"); err != nil {
		t.Fatal(err)
	}
	s := giteatest.New(giteatest.WithPerPage(2), giteatest.WithVersion("11.0.1+gitea-1.22.0"))
	t.Cleanup(s.Close)
	s.AddRepo("acme", "app", "main", githubtest.BareRepos(gs.Dir))

	c, err := gitea.NewClient(s.URL(), gitea.SetToken(giteatest.DefaultToken))
	if err != nil {
		t.Fatalf("NewClient (asks the version): %v", err)
	}
	if _, err := gitea.NewClient(s.URL(), gitea.SetToken("wrong")); err != nil {
		t.Fatalf("the version needs no token: %v", err)
	}
	for i := range 5 {
		if out, err := gitCLI(gs.Dir("acme", "app"), "branch", fmt.Sprintf("b%d", i), "main"); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if _, _, err := c.CreatePullRequest("acme", "app", gitea.CreatePullRequestOption{Head: fmt.Sprintf("b%d", i), Base: "main", Title: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	_, resp, err := c.CreatePullRequest("acme", "app", gitea.CreatePullRequestOption{Head: "b0", Base: "main", Title: "again"})
	if resp == nil || resp.StatusCode != http.StatusConflict || !strings.Contains(err.Error(), "pull request already exists for these targets") {
		t.Errorf("duplicate: %v %v", resp, err)
	}
	var pages, total int
	opts := gitea.ListPullRequestsOptions{State: gitea.StateOpen, Sort: "oldest", ListOptions: gitea.ListOptions{Page: 1, PageSize: 50}}
	for {
		prs, resp, err := c.ListRepoPullRequests("acme", "app", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages, total = pages+1, total+len(prs)
		if resp.Header.Get("X-Total-Count") != "5" {
			t.Errorf("X-Total-Count %q", resp.Header.Get("X-Total-Count"))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 3 || total != 5 {
		t.Errorf("%d PRs in %d pages, want 5 in 3", total, pages)
	}
	if _, resp, err := c.GetRepo("acme", "nope"); resp == nil || resp.StatusCode != http.StatusNotFound || err.Error() != "The target couldn't be found." {
		t.Errorf("missing repository: %v %v", resp, err)
	}
}

func gitCLI(dir string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
}
