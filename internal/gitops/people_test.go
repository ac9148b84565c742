package gitops_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// What people and registries do to the world between runs.

// humanPush commits edits to branch as a person would (own clone, own
// name) and pushes; it returns the new commit.
func (w *world) humanPush(t *testing.T, branch, msg string, edits map[string]func(string) string) string {
	t.Helper()
	h, err := w.tryHumanPush(gittest.TempDir(t), branch, msg, edits)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// tryHumanPush is humanPush for a goroutine other than the test's, such as
// a gittest hook, where t.Fatal must not be called.
func (w *world) tryHumanPush(dir, branch, msg string, edits map[string]func(string) string) (string, error) {
	r, err := git.PlainCloneContext(w.ctx, dir, false, &git.CloneOptions{
		URL: w.gs.URL(owner + "/" + name), Auth: gitAuth,
		ReferenceName: plumbing.NewBranchReferenceName(branch), SingleBranch: true,
	})
	if err != nil {
		return "", fmt.Errorf("clone %s: %w", branch, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return "", err
	}
	for f, edit := range edits {
		p := filepath.Join(dir, filepath.FromSlash(f))
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		after := edit(string(b))
		if after == string(b) {
			return "", fmt.Errorf("edit of %s changes nothing", f)
		}
		if err := os.WriteFile(p, []byte(after), 0o644); err != nil {
			return "", err
		}
		if _, err := wt.Add(f); err != nil {
			return "", err
		}
	}
	who := human
	who.When = time.Now()
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &who, Committer: &who})
	if err != nil {
		return "", err
	}
	ref := "refs/heads/" + branch
	if err := r.PushContext(w.ctx, &git.PushOptions{Auth: gitAuth, RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec(ref + ":" + ref)}}); err != nil {
		return "", fmt.Errorf("push %s: %w", branch, err)
	}
	return h.String(), nil
}

// replace is an edit that must find old.
func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// pushTag makes a newer tag of a seeded image appear in the registry.
func (w *world) pushTag(t *testing.T, image, tag string) {
	t.Helper()
	if _, err := w.reg.Push(w.ctx, image, tag); err != nil {
		t.Fatal(err)
	}
}
