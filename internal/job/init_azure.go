package job

import (
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// headBranch is the branch dir's checkout is on, which init takes for the
// default branch its pipeline is scheduled on; "" (main) when it is on
// none or is no clone.
func headBranch(dir string) string {
	r, err := git.PlainOpen(dir)
	if err != nil {
		return ""
	}
	// HEAD as it is written, so that a clone with no commit yet has one.
	ref, err := r.Storer.Reference(plumbing.HEAD)
	if err != nil || ref.Type() != plumbing.SymbolicReference || !ref.Target().IsBranch() {
		return ""
	}
	return ref.Target().Short()
}

// releaseOf is the release a pipeline installs: this build's version when
// it is a release, else "" (a placeholder to pin).
func releaseOf(version string) string {
	if semver.MatchString(version) {
		return strings.TrimPrefix(version, "v")
	}
	return ""
}
