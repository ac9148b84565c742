package githubtest

import "github.com/imagebot/imagebot/internal/testing/forgetest"

// The fake's repository content comes from forgetest, which every fake
// host shares (branches, compare, merge, and the Git Data API's objects).
type (
	GitBackend   = forgetest.GitBackend
	GitData      = forgetest.GitData
	Comparison   = forgetest.Comparison
	MergeRequest = forgetest.MergeRequest
	BareRepos    = forgetest.BareRepos
)

var (
	ErrNoBranch      = forgetest.ErrNoBranch
	ErrMergeConflict = forgetest.ErrMergeConflict
	ErrStaleRef      = forgetest.ErrStaleRef
)
