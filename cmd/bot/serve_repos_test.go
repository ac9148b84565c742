package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSyncMovesCloneToOrigin: before each run the checkout becomes origin's
// default branch (not called main here), whatever was done to it locally.
func TestSyncMovesCloneToOrigin(t *testing.T) {
	for _, detach := range []bool{false, true} {
		bare, seed := newOrigin(t, "trunk")
		clone := filepath.Join(t.TempDir(), "clone")
		runGit(t, "", "clone", "-q", bare, clone)
		if detach { // as actions/checkout leaves a pull request's checkout
			runGit(t, clone, "checkout", "-q", "--detach")
		}
		// Local damage that a hard reset must undo.
		writeRepoFile(t, clone, "apps/a.yaml", "image: local:edit\n")
		writeRepoFile(t, clone, "local.yaml", "image: local:commit\n")
		runGit(t, clone, "add", "-A")
		runGit(t, clone, "commit", "-q", "-m", "local")
		writeRepoFile(t, clone, "apps/a.yaml", "image: dirty:1\n")

		// Origin moves on: a change, a deletion, an addition.
		writeRepoFile(t, seed, "apps/a.yaml", "image: nginx:1.26.1\n")
		os.Remove(filepath.Join(seed, "apps/b.yaml"))
		writeRepoFile(t, seed, "apps/c/d.yaml", "image: redis:7.2.5\n")
		runGit(t, seed, "add", "-A")
		runGit(t, seed, "commit", "-q", "-m", "move on")
		runGit(t, seed, "push", "-q", "origin", "trunk")
		want := strings.TrimSpace(runGit(t, seed, "rev-parse", "HEAD"))

		s := &server{log: discardLog()}
		if err := s.sync(context.Background(), target{dir: clone}); err != nil {
			t.Fatalf("detached %v: sync: %v", detach, err)
		}
		if got := strings.TrimSpace(runGit(t, clone, "rev-parse", "HEAD")); got != want {
			t.Errorf("detached %v: HEAD = %s, want origin's %s", detach, got, want)
		}
		if got := strings.TrimSpace(runGit(t, clone, "symbolic-ref", "HEAD")); got != "refs/heads/trunk" {
			t.Errorf("detached %v: HEAD -> %s, want refs/heads/trunk", detach, got)
		}
		if diff := cmp.Diff(checkoutFiles(t, seed), checkoutFiles(t, clone)); diff != "" {
			t.Errorf("detached %v: files (-origin +clone):\n%s", detach, diff)
		}
	}
}

// TestServeOnceClones: --once clones every --clone URL into --workdir, runs
// each for its own repository (never by setting GITHUB_REPOSITORY: the
// repositories run at once), and exits with the worst status.
func TestServeOnceClones(t *testing.T) {
	root := t.TempDir()
	var urls []string
	for _, name := range []string{"app", "web"} {
		bare, _ := newOrigin(t, "main")
		url := filepath.Join(root, "acme", name+".git")
		os.MkdirAll(filepath.Dir(url), 0o755)
		if err := os.Rename(bare, url); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, url)
	}
	t.Setenv("GITHUB_REPOSITORY", "someone/else")
	work := t.TempDir()
	o, _, err := parseServe([]string{"--once", "--workdir", work, "--clone", urls[0], "--clone", urls[1]}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	s.job = func(_ context.Context, tg target, _ *registryPool) (runSummary, int) {
		repo := tg.name
		mu.Lock()
		seen = append(seen, repo)
		mu.Unlock()
		if env := os.Getenv("GITHUB_REPOSITORY"); env != "someone/else" {
			t.Errorf("GITHUB_REPOSITORY during a run = %q, want it untouched", env)
		}
		if _, err := os.Stat(filepath.Join(tg.dir, "apps/a.yaml")); err != nil {
			t.Errorf("%s: checkout not there: %v", repo, err)
		}
		if repo == "acme/web" {
			return runSummary{Failed: 1}, exitPartial
		}
		return runSummary{}, exitOK
	}
	if code := s.serve(context.Background()); code != exitPartial {
		t.Errorf("serve --once = %d, want 2 (the worst)", code)
	}
	slices.Sort(seen)
	if diff := cmp.Diff([]string{"acme/app", "acme/web"}, seen); diff != "" {
		t.Errorf("repository per run (-want +got):\n%s", diff)
	}
}

func TestShard(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, tc := range []struct {
		spec, env string
		i, n      int
		err       string
	}{
		{spec: "0/1", i: 0, n: 1},
		{spec: "3/4", i: 3, n: 4},
		{spec: "auto/4", env: "2", i: 2, n: 4},
		{spec: "auto/4", err: "JOB_COMPLETION_INDEX is not set"},
		{spec: "auto/4", env: "4", err: "want 0 to 3"},
		{spec: "4/4", err: "want 0 to 3"},
		{spec: "-1/4", err: "want 0 to 3"},
		{spec: "0/0", err: "at least 1"},
		{spec: "1", err: "want i/n"},
		{spec: "x/2", err: "want 0 to 1"},
	} {
		i, n, err := parseShard(tc.spec, env(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseShard(%q, %q) = %v, want an error with %q", tc.spec, tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || i != tc.i || n != tc.n {
			t.Errorf("parseShard(%q, %q) = %d, %d, %v; want %d, %d", tc.spec, tc.env, i, n, err, tc.i, tc.n)
		}
	}

	// The shares split the list: every URL in exactly one, the same every
	// time, and none moves when another URL joins the list.
	var urls []string
	for _, c := range "abcdefghijklmnopqrstuvwxyz" {
		urls = append(urls, "https://github.com/acme/"+string(c))
	}
	var all []string
	for i := range 4 {
		got := shard(urls, i, 4)
		if len(got) == 0 || len(got) == len(urls) {
			t.Errorf("share %d of 4 holds %d of %d URLs: not a split", i, len(got), len(urls))
		}
		if diff := cmp.Diff(got, shard(urls, i, 4)); diff != "" {
			t.Errorf("share %d differs between calls:\n%s", i, diff)
		}
		grown := shard(append(slices.Clone(urls), "https://github.com/acme/new"), i, 4)
		if diff := cmp.Diff(got, slices.DeleteFunc(grown, func(u string) bool { return u == "https://github.com/acme/new" })); diff != "" {
			t.Errorf("share %d changed when a URL joined:\n%s", i, diff)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	if diff := cmp.Diff(urls, all); diff != "" {
		t.Errorf("union of the shares (-want +got):\n%s", diff)
	}
}

// newOrigin makes a bare repository whose HEAD is branch, holding two
// manifests, and the working clone it was pushed from.
func newOrigin(t *testing.T, branch string) (bare, seed string) {
	t.Helper()
	dir := t.TempDir()
	bare, seed = filepath.Join(dir, "origin.git"), filepath.Join(dir, "seed")
	runGit(t, "", "init", "-q", "--bare", "-b", branch, bare)
	runGit(t, "", "init", "-q", "-b", branch, seed)
	writeRepoFile(t, seed, "apps/a.yaml", "image: nginx:1.25.3\n")
	writeRepoFile(t, seed, "apps/b.yaml", "image: redis:7.2.4\n")
	runGit(t, seed, "add", "-A")
	runGit(t, seed, "commit", "-q", "-m", "initial")
	runGit(t, seed, "remote", "add", "origin", bare)
	runGit(t, seed, "push", "-q", "origin", branch)
	return bare, seed
}

var gitOnce sync.Once

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	gitOnce.Do(func() {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
	})
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeRepoFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkoutFiles reads a checkout without its .git.
func checkoutFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap, err := snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for k, v := range snap {
		m[k] = string(v)
	}
	return m
}
