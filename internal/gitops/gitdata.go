package gitops

import (
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// With RunOptions.SignedCommits a commit is not pushed: it is made again
// through GitHub's Git Data API (a tree, a commit, a ref), which GitHub
// authors as the token's bot and signs, so that it shows as Verified and
// passes branch protection's "require signed commits". The tree GitHub
// builds must hash to the tree built here, so the branch holds exactly the
// bytes a push would have; the commit differs only in author, date and
// signature.
//
// Unlike a push, the commit is not left in the run's repository, and it is
// not fetched back: nothing later in the run reads the branch again (a
// group's branch is looked at once, before it is committed to), the next
// run fetches every branch afresh, and the tracking ref left at the leased
// tip could only make a later move of the branch fail its lease, never
// overwrite anything.

// publish puts the commit built here on branch, by push or through the
// API, leased against the tip the run fetched: a branch that moved since
// is never overwritten.
func (r *runner) publish(ctx context.Context, branch string, commit plumbing.Hash, leased *object.Commit) (already bool, err error) {
	if !r.o.SignedCommits {
		return r.rm.push(ctx, branch, commit, leased)
	}
	return false, r.commitViaAPI(ctx, branch, commit, leased)
}

// commitViaAPI makes the commit built here again on the host: its changed
// files as a tree on its parent's, a commit of that tree without any
// identity, and the branch moved to it.
func (r *runner) commitViaAPI(ctx context.Context, branch string, local plumbing.Hash, leased *object.Commit) error {
	sc, ok := r.h.(SignedCommits)
	if !ok {
		return errNoSignedCommits(r.h)
	}
	c, err := r.rm.repo.CommitObject(local)
	if err != nil {
		return err
	}
	if len(c.ParentHashes) != 1 {
		return fmt.Errorf("commit %s: want one parent", local)
	}
	parent, err := c.Parent(0)
	if err != nil {
		return err
	}
	files, err := r.treeFiles(parent, c)
	if err != nil {
		return err
	}
	tree, err := sc.CreateTree(ctx, parent.TreeHash.String(), files)
	if err != nil {
		return fmt.Errorf("create tree for %s: %w", branch, err)
	}
	if tree != c.TreeHash.String() {
		return fmt.Errorf("create tree for %s: %s made tree %s, not %s: the files would differ from the plan's, so nothing is committed", branch, r.h.Name(), tree, c.TreeHash)
	}
	made, err := sc.CreateCommit(ctx, c.Message, tree, parent.Hash.String())
	if err != nil {
		return fmt.Errorf("create commit for %s: %w", branch, err)
	}
	r.checkAPICommit(made)
	lease := ""
	if leased != nil {
		lease = leased.Hash.String()
	}
	if err := sc.MoveBranch(ctx, branch, made.SHA, lease); err != nil {
		return err
	}
	r.log.Debug("committed through the API", "branch", branch, "commit", made.SHA, "verified", made.Verified)
	return nil
}

// errNoSignedCommits refuses git.signedCommits on a host without them.
func errNoSignedCommits(f Forge) error {
	return fmt.Errorf("git.signedCommits: api: %s cannot make commits through its API; remove it to push commits over git", f.Name())
}

// treeFiles are the files c changes from parent, with their content.
func (r *runner) treeFiles(parent, c *object.Commit) ([]TreeFile, error) {
	from, err := parent.Tree()
	if err != nil {
		return nil, err
	}
	to, err := c.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, err
	}
	var files []TreeFile
	for _, ch := range changes {
		if ch.To.Name == "" {
			return nil, fmt.Errorf("commit %s deletes %s: not supported through the API", c.Hash, ch.From.Name)
		}
		content, err := readBlob(r.rm.repo.Storer, ch.To.TreeEntry.Hash)
		if err != nil {
			return nil, err
		}
		files = append(files, TreeFile{Path: ch.To.Name, Mode: uint32(ch.To.TreeEntry.Mode), Content: content})
	}
	return files, nil
}

// readBlob reads the content of the blob hash.
func readBlob(objs storer.EncodedObjectStorer, hash plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(objs, hash)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// checkAPICommit says once what GitHub did differently than expected:
// signed nothing (branch protection will refuse the commit), or wrote
// another author than the run recognises as itself, which it then does.
func (r *runner) checkAPICommit(c APICommit) {
	if !c.Verified && !r.warnedUnsigned {
		r.warnedUnsigned = true
		r.log.Warn("GitHub did not sign the commit it made: branch protection that requires signed commits refuses it; GitHub signs those of GitHub Apps and of GITHUB_TOKEN", "reason", c.Reason)
	}
	if c.Email != "" && c.Email != r.apiAuthor.Email {
		r.log.Warn("GitHub made the commit as someone else than expected; recognising it as imagebot's for this run", "author", c.AuthorName+" <"+c.Email+">", "expected", r.apiAuthor.Email)
		r.apiAuthor = object.Signature{Name: c.AuthorName, Email: c.Email}
	}
}

// useAPIAuthor learns who the host makes the author of the commits this
// run creates through the API, so that the run knows them for its own
// (runner.ours).
func (r *runner) useAPIAuthor(ctx context.Context) error {
	sc, ok := r.h.(SignedCommits)
	if !ok {
		return errNoSignedCommits(r.h)
	}
	name, email, personal, err := sc.APIAuthor(ctx)
	if err != nil {
		return err
	}
	if personal {
		r.log.Warn("git.signedCommits: api with a personal token: GitHub signs the API commits of GitHub Apps and GITHUB_TOKEN", "user", name)
	}
	r.apiAuthor = object.Signature{Name: name, Email: email}
	r.log.Debug("commits through the API are made as", "author", r.apiAuthor.Email)
	return nil
}

// madeBy reports whether c was authored and committed as email.
func madeBy(c *object.Commit, email string) bool {
	return email != "" && c.Author.Email == email && c.Committer.Email == email
}

// webFlow is the committer of the commits GitHub makes on a user's behalf
// in its web editor.
const webFlow = "noreply@github.com"

// madeThroughAPI reports whether c is one the run's credentials made
// through the API: authored by the bot, and committed by it (what
// go-github documents for a commit without committer) or by GitHub's
// web-flow, which commits its web editor's changes.
func (r *runner) madeThroughAPI(c *object.Commit) bool {
	return r.apiAuthor.Email != "" && c.Author.Email == r.apiAuthor.Email &&
		(c.Committer.Email == r.apiAuthor.Email || c.Committer.Email == webFlow)
}
