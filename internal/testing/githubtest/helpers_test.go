package githubtest

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

const apiToken = "ghs_api_token"

// env is one GitHub: a git remote with acme/apps, the fake API serving it,
// and a real go-github client pointed at the fake.
type env struct {
	t    *testing.T
	ctx  context.Context
	git  *gittest.Server
	fake *Server
	gh   *github.Client
}

func setup(t *testing.T, opts []Option, repoOpts ...RepoOption) *env {
	t.Helper()
	gs, err := gittest.New(gittest.TempDir(t), "git-token")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("acme", "apps", map[string][]byte{
		"apps/web/deployment.yaml": []byte("image: nginx:1.25.3\n"),
	}, "main"); err != nil {
		t.Fatal(err)
	}
	fake := New(append([]Option{WithToken(apiToken)}, opts...)...)
	t.Cleanup(fake.Close)
	fake.AddRepo("acme", "apps", "main", BareRepos(gs.Dir), append([]RepoOption{WithCloneURL(gs.URL("acme/apps"))}, repoOpts...)...)
	return &env{t: t, ctx: context.Background(), git: gs, fake: fake, gh: client(t, fake, apiToken)}
}

func client(t *testing.T, fake *Server, token string) *github.Client {
	t.Helper()
	gh := github.NewClient(nil)
	if token != "" {
		gh = gh.WithAuthToken(token)
	}
	u, err := url.Parse(fake.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	gh.BaseURL = u
	return gh
}

// git runs the git CLI on the bare repository.
func (e *env) gitRun(args ...string) string {
	e.t.Helper()
	out, err := BareRepos(e.git.Dir).Git("acme", "apps", nil, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// commit writes content to file on top of from (a branch or SHA) and points
// branch at the new commit, as a push by imagebot would.
func (e *env) commit(branch, from, file, content string) string {
	e.t.Helper()
	index := filepath.Join(e.t.TempDir(), "index")
	src := filepath.Join(e.t.TempDir(), "content")
	if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	blob := e.gitRun("hash-object", "-w", src)
	idx := []string{"GIT_INDEX_FILE=" + index}
	for _, args := range [][]string{{"read-tree", from}, {"update-index", "--add", "--cacheinfo", "100644," + blob + "," + file}} {
		if _, err := BareRepos(e.git.Dir).Git("acme", "apps", idx, args...); err != nil {
			e.t.Fatal(err)
		}
	}
	tree, err := BareRepos(e.git.Dir).Git("acme", "apps", idx, "write-tree")
	if err != nil {
		e.t.Fatal(err)
	}
	sha := e.gitRun("commit-tree", strings.TrimSpace(tree), "-p", from, "-m", "update "+file)
	e.gitRun("update-ref", "refs/heads/"+branch, sha)
	return sha
}

// branch creates branch off main with one commit changing the deployment.
func (e *env) branch(name, tag string) string {
	e.t.Helper()
	return e.commit(name, "main", "apps/web/deployment.yaml", "image: nginx:"+tag+"\n")
}

func (e *env) createPR(head string) *github.PullRequest {
	e.t.Helper()
	pr, _, err := e.gh.PullRequests.Create(e.ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String("Update " + head), Head: github.String(head),
		Base: github.String("main"), Body: github.String("body of " + head),
	})
	if err != nil {
		e.t.Fatalf("create PR from %s: %v", head, err)
	}
	return pr
}

// errorResponse asserts err is GitHub's error document with status.
func errorResponse(t *testing.T, err error, status int) *github.ErrorResponse {
	t.Helper()
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		t.Fatalf("error %v (%T), want *github.ErrorResponse", err, err)
	}
	if er.Response.StatusCode != status {
		t.Fatalf("status %d (%v), want %d", er.Response.StatusCode, err, status)
	}
	return er
}
