package serve

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/job"
)

// TestSyncMovesCloneToOrigin: before each run a disposable checkout
// (ResetCheckout) becomes origin's default branch (not called main here),
// whatever was done to it locally.
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

		s := &Server{o: Options{ResetCheckout: true}, log: slog.New(slog.DiscardHandler)}
		if err := s.syncTarget(context.Background(), Target{Dir: clone}); err != nil {
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

// TestSyncKeepsPersonsCheckout: a checkout serve did not clone, and was
// not told is disposable, keeps its uncommitted edit and untracked file
// byte for byte: a dry run runs on it as it is; a real run is refused at
// start and at each run, naming a few paths and counting the rest.
func TestSyncKeepsPersonsCheckout(t *testing.T) {
	bare, _ := newOrigin(t, "main")
	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, "", "clone", "-q", bare, clone)
	writeRepoFile(t, clone, "apps/a.yaml", "image: nginx:1.25.3 # edited\n")
	for _, n := range []string{"u1", "u2", "u3", "u4", "u5", "u6"} {
		writeRepoFile(t, clone, "notes/"+n+".txt", n)
	}
	writeRepoFile(t, clone, ".gitignore", "*.log\n")
	runGit(t, clone, "add", ".gitignore")
	runGit(t, clone, "commit", "-q", "-m", "ignore logs")
	writeRepoFile(t, clone, "debug.log", "ignored, so not someone's work")
	before := checkoutFiles(t, clone)
	head := runGit(t, clone, "rev-parse", "HEAD")

	runs := 0
	pass1 := runOf(func(context.Context, Target) (job.Summary, Status) { runs++; return job.Summary{}, OK })
	s, err := New(Options{Dir: clone, Once: true, DryRun: true, newRun: pass1})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if st := s.Run(context.Background()); st != OK || runs != 1 {
		t.Errorf("dry run: status %v after %d runs, want OK after 1", st, runs)
	}

	_, err = New(Options{Dir: clone, Once: true, newRun: pass1})
	want := "apps/a.yaml, notes/u1.txt, notes/u2.txt, notes/u3.txt, notes/u4.txt and 2 more"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--clone URL") || !strings.Contains(err.Error(), "--reset-checkout") {
		t.Errorf("real run: New = %v, want the dirty paths (%s) and what to do", err, want)
	}
	// Made dirty after start: that run is refused, the next ones too.
	s = &Server{o: Options{}, log: slog.New(slog.DiscardHandler)}
	var dirty *DirtyError
	if err := s.syncTarget(context.Background(), Target{Dir: clone}); !errors.As(err, &dirty) {
		t.Errorf("sync of a dirty checkout = %v, want a *DirtyError", err)
	}

	if diff := cmp.Diff(before, checkoutFiles(t, clone)); diff != "" {
		t.Errorf("files changed (-before +after):\n%s", diff)
	}
	if got := runGit(t, clone, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
}

// TestOnceClones: Once clones every clone URL into Workdir, runs each with
// its own owner/name, and returns the worst status; a second pass reuses
// the clones.
func TestOnceClones(t *testing.T) {
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
	var seen []string
	s, err := New(Options{Once: true, Workdir: t.TempDir(), Clones: urls, newRun: runOf(func(_ context.Context, tg Target) (job.Summary, Status) {
		seen = append(seen, tg.Repository)
		if _, err := os.Stat(filepath.Join(tg.Dir, "apps/a.yaml")); err != nil {
			t.Errorf("%s: checkout not there: %v", tg.Repository, err)
		}
		if tg.Repository == "acme/web" {
			return job.Summary{Failed: 1}, Partial
		}
		return job.Summary{}, OK
	})})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if st := s.Run(context.Background()); st != Partial {
			t.Errorf("Run with Once = %v, want partial (the worst)", st)
		}
	}
	if diff := cmp.Diff([]string{"acme/app", "acme/web", "acme/app", "acme/web"}, seen); diff != "" {
		t.Errorf("repository per run (-want +got):\n%s", diff)
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
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
