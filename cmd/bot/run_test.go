package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

const runToken = "ghs_RUN7est7oken5ecret"

// runEnv is `run` in GitHub Actions: a repository on a git remote, the
// fake GitHub in front of it, the seeded registry, and a clone as
// actions/checkout leaves it.
type runEnv struct {
	reg   *fixtures.Registry
	gs    *gittest.Server
	gh    *githubtest.Server
	clone string
	args  []string // DIR and the registry mirrors
	env   environ
}

var runRepo = map[string][]byte{
	"apps/web.yaml":   []byte("kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.25.3\n"),
	"apps/cache.yaml": []byte("kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: cache\n          image: redis:7.2.4\n"),
	"apps/db.yaml":    []byte("kind: StatefulSet\nspec:\n  template:\n    spec:\n      containers:\n        - name: db\n          image: postgres:15.4\n"),
	// The config at the root leaves postgres alone; a second one, for
	// --config, leaves redis alone too. The runs here open more than the
	// default 2 pull requests an hour.
	".imagebot.yaml":   []byte("policies:\n  - match: docker.io/library/postgres\n    skip: true\npullRequests:\n  perHour: 0\n"),
	"ci/imagebot.yaml": []byte("policies:\n  - match: docker.io/library/postgres\n    skip: true\n  - match: docker.io/library/redis\n    skip: true\n"),
}

func newRunEnv(t *testing.T, ghOpts ...githubtest.Option) *runEnv {
	t.Helper()
	return newRunEnvOn(t, gittest.New, ghOpts...)
}

// newRunEnvOn is newRunEnv with the remote of newRemote: gittest.New (in
// process) or gittest.NewHTTPBackend (git's own, end to end).
func newRunEnvOn(t *testing.T, newRemote func(dir, token string) (*gittest.Server, error), ghOpts ...githubtest.Option) *runEnv {
	t.Helper()
	ctx := context.Background()
	reg, err := fixtures.Serve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	gs, err := newRemote(t.TempDir(), runToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("acme", "gitops", runRepo, "main"); err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(append([]githubtest.Option{githubtest.WithToken(runToken)}, ghOpts...)...)
	t.Cleanup(gh.Close)
	gh.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/gitops")))
	clone := filepath.Join(t.TempDir(), "checkout")
	if _, err := git.PlainCloneContext(ctx, clone, false, &git.CloneOptions{
		URL: gs.URL("acme/gitops"), Auth: &githttp.BasicAuth{Username: "x-access-token", Password: runToken},
	}); err != nil {
		t.Fatal(err)
	}
	env := environ{GitHubToken: runToken, GitHubAPIURL: gh.URL(), GitHubServerURL: serverURL(gs), GitHubRepository: "acme/gitops"}
	args := []string{"run", clone}
	for host, u := range reg.Mirrors() {
		args = append(args, "--mirror", host+"="+u)
	}
	return &runEnv{reg: reg, gs: gs, gh: gh, clone: clone, args: args, env: env}
}

// run runs `imagebot run` with the env's flags and extra ones.
func (e *runEnv) run(t *testing.T, extra ...string) (stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = imagebot(t, e.env, append(append([]string{}, e.args...), extra...)...)
	if strings.Contains(stdout+stderr, runToken) {
		t.Errorf("the token was printed")
	}
	return stdout, stderr, code
}

func (e *runEnv) open() map[string]githubtest.PR {
	prs := map[string]githubtest.PR{}
	for _, pr := range e.gh.PRs("acme", "gitops") {
		if pr.State == "open" {
			prs[pr.Head] = pr
		}
	}
	return prs
}

func (e *runEnv) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(e.clone, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunStaleDirtyClone: after PRs are merged, `run` on a clone that was
// never pulled, with edits nobody committed, plans from the default
// branch's tip: it exits 0 and proposes only what main still needs. The
// working tree (a stale tag, an edited config, a new file) changes nothing.
func TestRunStaleDirtyClone(t *testing.T) {
	t.Parallel()
	runStaleDirtyClone(t, newRunEnv(t))
}

// TestRunStaleDirtyCloneHTTPBackend is the same run against git's own
// http-backend, end to end.
func TestRunStaleDirtyCloneHTTPBackend(t *testing.T) {
	t.Parallel()
	runStaleDirtyClone(t, newRunEnvOn(t, gittest.NewHTTPBackend))
}

func runStaleDirtyClone(t *testing.T, e *runEnv) {
	stdout, stderr, code := e.run(t)
	if code != exitOK {
		t.Fatalf("first run: status %d\n%s%s", code, stdout, stderr)
	}
	open := e.open()
	if len(open) != 2 {
		t.Fatalf("open PRs %v, want nginx and redis (postgres is skipped)", open)
	}
	nginx, redis := open["imagebot/docker.io-library-nginx"], open["imagebot/docker.io-library-redis"]
	// Each PR by number, link and title, not only its branch.
	for _, pr := range []githubtest.PR{nginx, redis} {
		if want := fmt.Sprintf("opened #%d %s/acme/gitops/pull/%d %s\n", pr.Number, e.gh.URL(), pr.Number, pr.Title); !strings.Contains(stdout, want) {
			t.Errorf("first run's output lacks %q:\n%s", want, stdout)
		}
	}
	if err := e.gh.MergePR("acme", "gitops", nginx.Number); err != nil {
		t.Fatal(err)
	}

	// The clone still has nginx 1.25.3, and now a person's local edits.
	e.write(t, "apps/web.yaml", strings.Replace(string(runRepo["apps/web.yaml"]), "1.25.3", "1.24.0", 1))
	e.write(t, "apps/extra.yaml", "kind: Pod\nspec:\n  containers:\n    - name: x\n      image: busybox:1.36.0\n")
	e.write(t, ".imagebot.yaml", "policies:\n  - match: \"**\"\n    skip: true\n")

	stdout, stderr, code = e.run(t)
	if code != exitOK {
		t.Fatalf("run on a stale, dirty clone: status %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "differs from") {
		t.Errorf("run compared the clone with main:\n%s%s", stdout, stderr)
	}
	if want := fmt.Sprintf("unchanged #%d %s/acme/gitops/pull/%d %s\n", redis.Number, e.gh.URL(), redis.Number, redis.Title); !strings.Contains(stdout, want) {
		t.Errorf("redis's PR not reported unchanged (%q):\n%s", want, stdout)
	}
	prs := e.gh.PRs("acme", "gitops")
	if len(prs) != 2 {
		t.Errorf("%d PRs, want the 2 of the first run", len(prs))
	}
	if now := e.open(); len(now) != 1 || now["imagebot/docker.io-library-redis"].Number != redis.Number {
		t.Errorf("open PRs %v, want redis's #%d alone", now, redis.Number)
	}
}

// TestRunConfigFromTree: a relative --config names a file of the default
// branch's tip, not of the working tree; a missing one is an error naming
// where it was looked for.
func TestRunConfigFromTree(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	// Not in the working tree: run must read it from git.
	if err := os.Remove(filepath.Join(e.clone, "ci", "imagebot.yaml")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run(t, "--config", "ci/imagebot.yaml")
	if code != exitOK {
		t.Fatalf("status %d\n%s%s", code, stdout, stderr)
	}
	if open := e.open(); len(open) != 1 || open["imagebot/docker.io-library-nginx"].Number == 0 {
		t.Errorf("open PRs %v, want nginx's alone (redis and postgres skipped by ci/imagebot.yaml)", open)
	}

	_, stderr, code = e.run(t, "--config", "ci/missing.yaml")
	if code != exitUsage || !strings.Contains(stderr, "--config ci/missing.yaml: no such file in main@") {
		t.Errorf("missing config: status %d, stderr %q", code, stderr)
	}
	_, stderr, code = e.run(t, "--config", "../outside.yaml")
	if code != exitUsage || !strings.Contains(stderr, "config ../outside.yaml is outside the repository: give a path inside it") {
		t.Errorf("config outside the repository: status %d, stderr %q", code, stderr)
	}
}

// TestRunRateLimited: GitHub's secondary limit asks for an hour: run opens
// what it could, then says in one line how many PRs are left, and exits 2.
func TestRunRateLimited(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t, githubtest.WithSecondaryLimit(githubtest.SecondaryLimit{Writes: 1, Per: time.Hour}))
	stdout, stderr, code := e.run(t)
	if code != exitPartial {
		t.Fatalf("status %d, want %d\n%s%s", code, exitPartial, stdout, stderr)
	}
	if n := strings.Count(stdout, "rate-limited: "); n != 1 || !strings.Contains(stdout, "rate-limited: 1 pull request left for the next run\n") {
		t.Errorf("want one rate-limited line for the one PR left:\n%s", stdout)
	}
	if strings.Contains(stdout, "failed:") {
		t.Errorf("rate-limited PRs reported as failures:\n%s", stdout)
	}
	if len(e.open()) != 1 {
		t.Errorf("open PRs %v, want the one written before the limit", e.open())
	}
}

// TestRunRefusedToken: a token GitHub rejects is named as such, with what
// to check, and ends the run with status 1 before any lookup.
func TestRunRefusedToken(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	e.env.GitHubToken = "ghs_expired"
	stdout, stderr, code := e.run(t)
	if code != exitUsage || stdout != "" {
		t.Errorf("status %d, stdout %q; want 1 and nothing", code, stdout)
	}
	want := "imagebot run: GitHub rejected the token (401 Bad credentials): check that GITHUB_TOKEN is valid and not expired\n"
	if stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// TestRunUnknownRepository: GitHub's 404 for the repository says which
// repository was asked for and what to check.
func TestRunUnknownRepository(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	e.env.GitHubRepository = "acme/typo"
	_, stderr, code := e.run(t)
	want := "GitHub has no repository acme/typo that this token can see (404 Not Found): check GITHUB_REPOSITORY"
	if code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("status %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestRunWithoutClone: with GITHUB_REPOSITORY set, a directory that is no
// clone will do: run fetches the repository from GITHUB_SERVER_URL.
func TestRunWithoutClone(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	e.args[1] = t.TempDir()
	e.env.GitHubServerURL = strings.TrimSuffix(e.gs.URL("acme/gitops"), "/acme/gitops.git")
	stdout, stderr, code := e.run(t)
	if code != exitOK {
		t.Fatalf("status %d\n%s%s", code, stdout, stderr)
	}
	if open := e.open(); len(open) != 2 {
		t.Errorf("open PRs %v, want nginx's and redis's", open)
	}
}
