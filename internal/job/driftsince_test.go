package job

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/imagebot/imagebot/internal/drift"
)

// A not-running finding names the last commit that changed its file, not
// a later commit that changed another file.
func TestMarkChanged(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	commit := func(file, content string, at time.Time) string {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(file); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "a", Email: "a@example.com", When: at}
		h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	commit("web.yaml", "image: web:1\n", t0)
	changed := commit("web.yaml", "image: web:2\n", t0.Add(time.Hour))
	commit("other.yaml", "x: 1\n", t0.Add(2*time.Hour))

	rep := &drift.Report{Drift: []drift.Finding{{Kind: drift.NotRunning, File: "web.yaml", Line: 1}, {Kind: drift.Stale, File: "web.yaml"}}}
	markChanged(dir, rep)
	if c := rep.Drift[0].Changed; c == nil || c.Hash != changed || !c.Time.Equal(t0.Add(time.Hour)) {
		t.Errorf("changed = %+v, want %s", c, changed)
	}
	if rep.Drift[1].Changed != nil {
		t.Error("a stale finding got a commit")
	}
	markChanged(t.TempDir(), rep) // not a clone: nothing happens
}
