package job

import (
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/imagebot/imagebot/internal/drift"
)

// maxSinceCommits bounds the history walked to find when a file last
// changed: a file untouched for longer is reported without its commit.
const maxSinceCommits = 2000

// markChanged gives each not-running finding the last commit of the
// repository in dir that changed its file, when dir is a git work tree.
// How long since then is how long the cluster has not followed git.
func markChanged(dir string, rep *drift.Report) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return // not a clone: the report stands without commits
	}
	found := map[string]*drift.Commit{}
	for i := range rep.Drift {
		f := &rep.Drift[i]
		if f.Kind != drift.NotRunning || f.File == "" {
			continue
		}
		c, seen := found[f.File]
		if !seen {
			c = lastChange(repo, f.File)
			found[f.File] = c
		}
		f.Changed = c
	}
}

// lastChange walks the first parents from HEAD to the commit whose file
// differs from its parent's: one tree lookup per commit, at most
// maxSinceCommits of them.
func lastChange(repo *git.Repository, file string) *drift.Commit {
	head, err := repo.Head()
	if err != nil {
		return nil
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil
	}
	cur := blobOf(c, file)
	for range maxSinceCommits {
		parent, err := c.Parent(0)
		if err != nil || blobOf(parent, file) != cur {
			// The root commit, or the one that changed the file.
			return &drift.Commit{Hash: c.Hash.String(), Time: c.Committer.When}
		}
		c = parent
	}
	return nil
}

// blobOf is the file's blob in c, zero when c does not have it.
func blobOf(c *object.Commit, file string) plumbing.Hash {
	tree, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash
	}
	e, err := tree.FindEntry(file)
	if err != nil {
		return plumbing.ZeroHash
	}
	return e.Hash
}
