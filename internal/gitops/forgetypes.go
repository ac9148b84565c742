package gitops

import "github.com/imagebot/imagebot/internal/gitops/forge"

// The host room's types under the names the lifecycle has always used:
// forge.Forge is the interface every driver implements; these aliases keep
// the lifecycle's code and its callers as they were while the drivers move
// into forge/<host>/.
type (
	Forge          = forge.Forge
	SignedCommits  = forge.SignedCommits
	Kind           = forge.Kind
	Repository     = forge.Repository
	Identity       = forge.Identity
	Change         = forge.Change
	Query          = forge.Query
	NewChange      = forge.NewChange
	ChangeEdit     = forge.ChangeEdit
	Issue          = forge.Issue
	TreeFile       = forge.TreeFile
	APICommit      = forge.APICommit
	RateLimitError = forge.RateLimitError
	Clock          = forge.Clock

	credentials = forge.Credentials
)

const (
	GitHub = forge.GitHub
	GitLab = forge.GitLab
	Gitea  = forge.Gitea
)

var (
	// Kinds are the hosts --forge accepts.
	Kinds = forge.Kinds
	// ErrNotSupported is a Kind without a driver yet.
	ErrNotSupported = forge.ErrNotSupported
	// ErrIssuesOff is a repository with issues turned off.
	ErrIssuesOff = forge.ErrIssuesOff
	// ErrNoIssueTracker is a host with no issues at all.
	ErrNoIssueTracker = forge.ErrNoIssueTracker
	// ErrNoRepository is a repository the host says does not exist, or
	// that the token may not see (forge.ErrNotFound).
	ErrNoRepository = forge.ErrNoRepository
)

// App is a GitHub App to authenticate as (forge.App).
type App = forge.App

// NewApp checks a GitHub App's credentials (forge.NewApp).
func NewApp(id int64, privateKey []byte, installation int64) (*App, error) {
	return forge.NewApp(id, privateKey, installation)
}
