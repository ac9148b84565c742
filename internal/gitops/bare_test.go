package gitops_test

import (
	"errors"
	"slices"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The tests' own questions about the remote (which commit a branch is at,
// how far ahead of main, which files a commit changes) are answered in
// process with go-git on the bare repository: a git process per question
// made them a third of the suite's time. Merges are still asked of git
// itself (merge-tree), which is what GitHub's answer is modelled on.

func (w *world) bare(t *testing.T) *git.Repository {
	t.Helper()
	r, err := git.PlainOpen(w.gs.Dir(owner, name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// commit is branch's tip on the remote.
func (w *world) commit(t *testing.T, branch string) *object.Commit {
	t.Helper()
	r := w.bare(t)
	ref, err := r.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		t.Fatalf("branch %s: %v", branch, err)
	}
	c, err := r.CommitObject(ref.Hash())
	if err != nil {
		t.Fatalf("branch %s: %v", branch, err)
	}
	return c
}

func (w *world) sha(t *testing.T, branch string) string {
	t.Helper()
	return w.commit(t, branch).Hash.String()
}

func (w *world) branchExists(branch string) bool {
	r, err := git.PlainOpen(w.gs.Dir(owner, name))
	if err != nil {
		return false
	}
	_, err = r.Reference(plumbing.NewBranchReferenceName(branch), true)
	return err == nil
}

// ahead counts the commits of branch that main does not have, as
// `git rev-list --count main..branch` does.
func (w *world) ahead(t *testing.T, branch string) int {
	t.Helper()
	onMain := map[plumbing.Hash]bool{}
	err := object.NewCommitPreorderIter(w.commit(t, main_), nil, nil).ForEach(func(c *object.Commit) error {
		onMain[c.Hash] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = object.NewCommitPreorderIter(w.commit(t, branch), nil, nil).ForEach(func(c *object.Commit) error {
		if onMain[c.Hash] {
			return storer.ErrStop
		}
		n++
		return nil
	})
	if err != nil && !errors.Is(err, storer.ErrStop) {
		t.Fatal(err)
	}
	return n
}

// mergesCleanly says why branch does not merge into main, or nil, as
// `git merge-tree --write-tree main branch` does. When both sides only
// modify files since their merge base, and never the same file, the
// merge is clean: that is answered in process. Any other case is asked
// of git. The merge rounds ask it of every open PR after every merge: a
// git process each was most of their cost.
func (w *world) mergesCleanly(t *testing.T, branch string) error {
	t.Helper()
	if ok, err := disjointEdits(w.commit(t, main_), w.commit(t, branch)); err == nil && ok {
		return nil
	}
	_, err := w.tryGit("merge-tree", "--write-tree", main_, branch)
	return err
}

// disjointEdits reports whether a and b, since their one merge base, only
// modified files that exist on both sides of the base and no file twice.
func disjointEdits(a, b *object.Commit) (bool, error) {
	bases, err := a.MergeBase(b)
	if err != nil || len(bases) != 1 {
		return false, err
	}
	edited := func(c *object.Commit) (map[string]bool, bool, error) {
		from, err := bases[0].Tree()
		if err != nil {
			return nil, false, err
		}
		to, err := c.Tree()
		if err != nil {
			return nil, false, err
		}
		changes, err := object.DiffTree(from, to)
		if err != nil {
			return nil, false, err
		}
		paths := map[string]bool{}
		for _, ch := range changes {
			if ch.From.Name == "" || ch.From.Name != ch.To.Name {
				return nil, false, nil // an addition, removal or rename
			}
			paths[ch.From.Name] = true
		}
		return paths, true, nil
	}
	pa, ok, err := edited(a)
	if err != nil || !ok {
		return false, err
	}
	pb, ok, err := edited(b)
	if err != nil || !ok {
		return false, err
	}
	for p := range pb {
		if pa[p] {
			return false, nil
		}
	}
	return true, nil
}

// changedFiles are the paths that differ between two commits, sorted.
func changedFiles(t *testing.T, from, to *object.Commit) []string {
	t.Helper()
	a, err := from.Tree()
	if err != nil {
		t.Fatal(err)
	}
	b, err := to.Tree()
	if err != nil {
		t.Fatal(err)
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		p := c.To.Name
		if p == "" {
			p = c.From.Name
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// fileOf is a file of a commit's tree.
func fileOf(t *testing.T, c *object.Commit, path string) string {
	t.Helper()
	f, err := c.File(path)
	if err != nil {
		t.Fatalf("%s:%s: %v", c.Hash, path, err)
	}
	s, err := f.Contents()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
