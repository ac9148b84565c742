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
// made them a third of the suite's time. Merges are asked of git itself
// (merge-tree), which is what GitHub's answer is modelled on, but for the
// plain case of two sides editing different files (mergesCleanly).

// bare is the remote's repository, opened once per world so that its
// object cache serves every question: objects never change, and refs are
// read from disk each time.
func (w *world) bare(t *testing.T) *git.Repository {
	t.Helper()
	if w.repo == nil {
		r, err := git.PlainOpen(w.gs.Dir(owner, name))
		if err != nil {
			t.Fatal(err)
		}
		w.repo = r
	}
	return w.repo
}

// commit is branch's tip on the remote.
func (w *world) commit(t *testing.T, branch string) *object.Commit {
	t.Helper()
	c, err := tip(w.bare(t), branch)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// A pack written since the repository was opened (git's own
		// receive-pack keeps big pushes as packs): open it again.
		w.repo = nil
		c, err = tip(w.bare(t), branch)
	}
	if err != nil {
		t.Fatalf("branch %s: %v", branch, err)
	}
	return c
}

func tip(r *git.Repository, branch string) (*object.Commit, error) {
	ref, err := r.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		return nil, err
	}
	return r.CommitObject(ref.Hash())
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
	base, err := bases[0].Tree()
	if err != nil {
		return false, err
	}
	edited := map[string]int{}
	for _, c := range []*object.Commit{a, b} {
		tree, err := c.Tree()
		if err != nil {
			return false, err
		}
		if ok, err := modifiedOnly(base, tree, "", edited); err != nil || !ok {
			return false, err
		}
	}
	for _, sides := range edited {
		if sides > 1 {
			return false, nil
		}
	}
	return true, nil
}

// modifiedOnly counts in edited each file that differs between from and
// to, descending only into subtrees that differ; false if a path was
// added, removed, or turned from file to directory or back.
func modifiedOnly(from, to *object.Tree, dir string, edited map[string]int) (bool, error) {
	if len(from.Entries) != len(to.Entries) {
		return false, nil
	}
	for i, f := range from.Entries {
		e := to.Entries[i] // entries are sorted: same names, same order
		switch {
		case f.Name != e.Name || f.Mode.IsFile() != e.Mode.IsFile():
			return false, nil
		case f.Hash == e.Hash && f.Mode == e.Mode:
		case f.Mode.IsFile():
			edited[dir+f.Name]++
		default:
			ft, err := from.Tree(f.Name)
			if err != nil {
				return false, err
			}
			et, err := to.Tree(e.Name)
			if err != nil {
				return false, err
			}
			if ok, err := modifiedOnly(ft, et, dir+f.Name+"/", edited); err != nil || !ok {
				return false, err
			}
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
