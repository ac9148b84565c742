package forgetest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// GitData is what the fake's Git Data API (blobs, trees, commits, refs)
// needs of the repository beyond GitBackend: its object database, to write
// the very objects that a fetch over git then sees, and compare-and-swap
// updates of branches. BareRepos implements it; a GitBackend without it
// answers those endpoints 404.
type GitData interface {
	// Objects opens the repository's object database.
	Objects(owner, repo string) (storer.EncodedObjectStorer, error)
	// SetBranch points branch at sha if it points at old now, or does not
	// exist when old is "". A branch that moved is ErrStaleRef.
	SetBranch(owner, repo, branch, sha, old string) error
	// IsAncestor reports whether commit a is an ancestor of commit b (or b).
	IsAncestor(owner, repo, a, b string) (bool, error)
}

// ErrStaleRef is a branch that is not where a SetBranch expected it.
var ErrStaleRef = errors.New("branch moved")

var _ GitData = BareRepos(nil)

// Objects implements GitData with go-git on the bare repository: loose
// objects that git http-backend serves like any other.
func (b BareRepos) Objects(owner, repo string) (storer.EncodedObjectStorer, error) {
	return b.storage(owner, repo)
}

// SetBranch implements GitData with git update-ref, which takes the same
// lock as a push that receive-pack is applying: the two cannot interleave.
func (b BareRepos) SetBranch(owner, repo, branch, sha, old string) error {
	if old == "" {
		old = strings.Repeat("0", 40) // update-ref's "must not exist"
	}
	if _, err := b.Git(owner, repo, nil, "update-ref", "refs/heads/"+branch, sha, old); err != nil {
		return fmt.Errorf("%s: %w: %v", branch, ErrStaleRef, err)
	}
	return nil
}

// IsAncestor implements GitData, in process: `git merge-base
// --is-ancestor a c`.
func (b BareRepos) IsAncestor(owner, repo, a, c string) (bool, error) {
	aSHA, err := b.resolve(owner, repo, a)
	if err != nil {
		return false, err
	}
	cSHA, err := b.resolve(owner, repo, c)
	if err != nil {
		return false, err
	}
	st, err := b.storage(owner, repo)
	if err != nil {
		return false, err
	}
	from, err := ancestors(st, cSHA)
	if err != nil {
		return false, fmt.Errorf("commit %s: %w", c, err)
	}
	return from[plumbing.NewHash(aSHA)], nil
}
