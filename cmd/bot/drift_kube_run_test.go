package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
)

// testRunPins runs `imagebot run --kubeconfig` on a GitHub repository
// holding files, against the cluster of TestDriftKube: the pull request
// that pins web's tag to the registry's current digest opens, naming the
// drift it fixes.
func testRunPins(t *testing.T, srv *kubetest.Server, files map[string]string, image, digest string) {
	ctx := context.Background()
	gs, err := gittest.New(t.TempDir(), runToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	repo := map[string][]byte{}
	for name, content := range files {
		repo[name] = []byte(content)
	}
	if _, err := gs.CreateRepo("acme", "gitops", repo, "main"); err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(githubtest.WithToken(runToken))
	t.Cleanup(gh.Close)
	gh.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/gitops")))
	clone := filepath.Join(t.TempDir(), "checkout")
	if _, err := git.PlainCloneContext(ctx, clone, false, &git.CloneOptions{
		URL: gs.URL("acme/gitops"), Auth: &githttp.BasicAuth{Username: "x-access-token", Password: runToken},
	}); err != nil {
		t.Fatal(err)
	}
	env := environ{GitHubToken: runToken, GitHubAPIURL: gh.URL(), GitHubServerURL: serverURL(gs), GitHubRepository: "acme/gitops"}
	out, errOut, code := imagebot(t, env, "run", clone, "--kubeconfig", srv.Kubeconfig)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	var pin *githubtest.PR
	for _, pr := range gh.PRs("acme", "gitops") {
		if pr.State == "open" && strings.Contains(pr.Body, image+"** from") {
			pin = &pr
		}
	}
	if pin == nil {
		t.Fatalf("no pin pull request opened:\n%s\n%+v", out, gh.PRs("acme", "gitops"))
	}
	for _, want := range []string{image, digest, "Drift in cluster prod: the pods of Deployment prod/web run 2 different builds", "envs/prod/web.yaml:11"} {
		if !strings.Contains(pin.Body, want) {
			t.Errorf("the pin's body lacks %q:\n%s", want, pin.Body)
		}
	}
}
