package githubtest_test

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// A git remote and the GitHub API in front of it, wired as tests and the
// demo do: push a branch with go-git, open a PR with go-github, merge it as
// a human would.
func Example() {
	ctx := context.Background()
	gs, err := gittest.New("", "git-token")
	if err != nil {
		log.Fatal(err)
	}
	defer gs.Close()
	files := map[string][]byte{"deploy.yaml": []byte("image: nginx:1.25.3\n")}
	if _, err := gs.CreateRepo("acme", "apps", files, "main"); err != nil {
		log.Fatal(err)
	}
	fake := githubtest.New(githubtest.WithToken("api-token"))
	defer fake.Close()
	fake.AddRepo("acme", "apps", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/apps")))

	// The bot's side: clone, commit, push a branch.
	auth := &githttp.BasicAuth{Username: "x-access-token", Password: "git-token"}
	work, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(work)
	repo, err := git.PlainClone(work, false, &git.CloneOptions{URL: gs.URL("acme/apps"), Auth: auth})
	if err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "deploy.yaml"), []byte("image: nginx:1.26.1\n"), 0o644)
	wt, _ := repo.Worktree()
	wt.Add("deploy.yaml")
	sig := &object.Signature{Name: "imagebot", Email: "bot@example.invalid", When: time.Now()}
	wt.Commit("Update nginx to 1.26.1", &git.CommitOptions{Author: sig})
	spec := config.RefSpec("refs/heads/main:refs/heads/imagebot/nginx")
	if err := repo.Push(&git.PushOptions{Auth: auth, RefSpecs: []config.RefSpec{spec}}); err != nil {
		log.Fatal(err)
	}

	gh := github.NewClient(nil).WithAuthToken("api-token")
	gh.BaseURL, _ = url.Parse(fake.URL() + "/")
	pr, _, err := gh.PullRequests.Create(ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String("Update nginx to 1.26.1"), Head: github.String("imagebot/nginx"), Base: github.String("main"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("opened", pr.GetNumber(), pr.GetMergeableState())

	if err := fake.MergePR("acme", "apps", pr.GetNumber()); err != nil {
		log.Fatal(err)
	}
	pr, _, _ = gh.PullRequests.Get(ctx, "acme", "apps", pr.GetNumber())
	fmt.Println("merged", pr.GetMerged(), "writes", fake.Writes(), "pushes", gs.Pushes())
	// Output:
	// opened 1 clean
	// merged true writes 1 pushes 1
}
