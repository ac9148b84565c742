package forgetest

import (
	"fmt"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// What the fake asks of a repository most (where a branch is, how two
// commits relate) it reads in process with go-git. Every listing brings
// every open PR up to date, and a git process per PR per request made the
// fake, not the bot, the slow part of the tests. Writes that must take
// git's own locks against a concurrent receive-pack (update-ref), and
// merges (merge-tree), stay with the git CLI.

// opened holds a storage per bare repository directory, opened once per
// process: each keeps a cache of the (immutable) objects read so far, and
// reads refs and loose objects from disk every time, so pushes that land
// meanwhile are seen.
var opened sync.Map // dir -> *filesystem.Storage

func (b BareRepos) storage(owner, repo string) (*filesystem.Storage, error) {
	dir := b(owner, repo)
	if st, ok := opened.Load(dir); ok {
		st := st.(*filesystem.Storage)
		// A storage lists pack files once; a push of many objects (or a
		// repack) since then brought a new one.
		st.Reindex()
		return st, nil
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err // not cached: the repository may be created later
	}
	fs, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("%s: not a repository on disk", dir)
	}
	st, _ := opened.LoadOrStore(dir, fs)
	return st.(*filesystem.Storage), nil
}

// ancestors is every commit reachable from sha, sha included.
func ancestors(st storer.EncodedObjectStorer, sha string) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{plumbing.NewHash(sha)}
	for len(queue) > 0 {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := object.GetCommit(st, h)
		if err != nil {
			return nil, err
		}
		queue = append(queue, c.ParentHashes...)
	}
	return seen, nil
}

// leftRight counts the commits reachable from a but not b, and from b but
// not a: `git rev-list --left-right --count a...b`.
func leftRight(st storer.EncodedObjectStorer, a, b string) (left, right int, err error) {
	fromA, err := ancestors(st, a)
	if err != nil {
		return 0, 0, err
	}
	fromB, err := ancestors(st, b)
	if err != nil {
		return 0, 0, err
	}
	for h := range fromA {
		if !fromB[h] {
			left++
		}
	}
	for h := range fromB {
		if !fromA[h] {
			right++
		}
	}
	return left, right, nil
}
