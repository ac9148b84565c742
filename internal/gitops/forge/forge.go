package forge

import (
	"context"
	"errors"
	"time"
)

// Forge is what a run needs from the git host that holds the repository:
// its change requests (GitHub's and Gitea's pull requests, GitLab's merge
// requests), the dashboard issue, commit statuses, and who the bot is.
// Everything else a run does is git, over smart HTTP, and the same on
// every host. The lifecycle speaks only Forge; each host is one
// implementation, and may live outside imagebot: the interface has no
// unexported method.
//
// Numbers are the host's per-repository ones (#12, !12). Every method
// wraps its errors with what it was doing, and returns a host's rate-limit
// answer (a 429 or 403 with Retry-After or an exhausted quota, beyond what
// the retrying client waited) as a *RateLimitError, which the lifecycle
// turns into "no more writes this run". Reads are paged to the end unless
// said otherwise; a rerun with nothing to do costs Repository and one
// Changes listing, whatever the host.
type Forge interface {
	// Name is the host's kind as people know it: "GitHub".
	Name() string
	// Repository is the repository as the token sees it; it is asked
	// once, by Open.
	Repository(ctx context.Context) (Repository, error)
	// WhoAmI is who the token acts as: the author of the bot's change
	// requests and comments. It is asked at most once per run, and only
	// when the bot's work must be told from others'.
	WhoAmI(ctx context.Context) (Identity, error)
	// BlobURL links a file's line (0: none) at commit on the host's web
	// pages, "" when Repository has not said where they are.
	BlobURL(commit, file string, line int) string

	// Changes lists the change requests q keeps, every page. The host
	// is asked to filter where its API can; the rest is dropped page by
	// page (Query.Keeps), before anything of it is kept, so that other
	// people's change requests (thousands, from forks, with long bodies)
	// cost the run neither memory nor more than their pages.
	Changes(ctx context.Context, q Query) ([]*Change, error)
	// ClosedChanges is the closed change requests of branches that by
	// keeps (its Base and Author; its State, Head and Prefix are not
	// read), by branch, at the lower cost of one listing per branch or
	// one listing of every closed one.
	ClosedChanges(ctx context.Context, by Query, branches []string) (map[string][]*Change, error)
	// RecentChanges lists the change requests opened at or after since,
	// open or closed, newest first: the pages up to the first older one,
	// usually one request (pullRequests.perHour).
	RecentChanges(ctx context.Context, since time.Time) ([]*Change, error)
	// CreateChange opens a change request. One already open for the
	// branch (a race with another run) is returned with created false.
	CreateChange(ctx context.Context, c NewChange) (_ *Change, created bool, err error)
	// EditChange changes a change request's title or body, or closes it.
	EditChange(ctx context.Context, number int, e ChangeEdit) error
	// Label adds labels, creating those the repository lacks.
	Label(ctx context.Context, number int, labels []string) error
	// RequestReviewers asks people ("login") or teams ("owner/team").
	RequestReviewers(ctx context.Context, number int, reviewers []string) error
	// EnableAutoMerge merges c by itself once its checks pass.
	EnableAutoMerge(ctx context.Context, c *Change) error
	// Comment comments on a change request.
	Comment(ctx context.Context, number int, text string) error
	// Commented reports whether a comment on the change request by a
	// login that by accepts contains mark.
	Commented(ctx context.Context, number int, mark string, by func(login string) bool) (bool, error)
	// DeleteBranch deletes a branch of the repository.
	DeleteBranch(ctx context.Context, branch string) error

	// Statuses is the state of each check on ref (a commit), by name:
	// "success", "pending", "failure", ... as rollout.Statuses reads
	// them. A name reported twice counts as successful only if both are.
	Statuses(ctx context.Context, ref string) (map[string]string, error)

	// FindIssue pages through the issues (not change requests) creator
	// opened, open or closed, oldest first, until pick returns one, for a
	// few pages at most. ErrIssuesOff: the repository has none.
	FindIssue(ctx context.Context, creator string, pick func([]*Issue) *Issue) (*Issue, error)
	// CreateIssue opens an issue with labels.
	CreateIssue(ctx context.Context, title, body string, labels []string) (*Issue, error)
	// EditIssue replaces an issue's body, leaving its title as it is.
	EditIssue(ctx context.Context, number int, body string) error

	// GitCredentials are what git authenticates to the host's remote
	// with: the user name and the token, its password.
	GitCredentials() (user string, c Credentials)
}

// SignedCommits is what a Forge may offer beyond Forge: making a commit
// itself through its API, which the host authors as the token's bot and
// signs (GitHub's Git Data API). A host without it refuses signed commits.
type SignedCommits interface {
	// APIAuthor is who the host makes the author of the commits it
	// makes; personal says the token is a person's, whose commits the
	// host does not sign.
	APIAuthor(ctx context.Context) (name, email string, personal bool, err error)
	// CreateTree makes the tree of base (a tree hash) with files put in,
	// returning its hash.
	CreateTree(ctx context.Context, base string, files []TreeFile) (string, error)
	// CreateCommit makes a commit of tree on parent, the host's identity
	// for author and committer.
	CreateCommit(ctx context.Context, message, tree, parent string) (APICommit, error)
	// MoveBranch points branch at commit, creating it when leased is
	// "", else only if it is still at leased.
	MoveBranch(ctx context.Context, branch, commit, leased string) error
}

// Kind names a host's driver (--forge).
type Kind string

const (
	GitHub Kind = "github"
	GitLab Kind = "gitlab"
	Gitea  Kind = "gitea" // and Forgejo
	Azure  Kind = "azure" // Azure DevOps, Services and Server
	// Bitbucket is Bitbucket Cloud (bitbucket.org); BitbucketServer is
	// Bitbucket Data Center (once Server), at any URL.
	Bitbucket       Kind = "bitbucket"
	BitbucketServer Kind = "bitbucket-server"
)

// Kinds are the hosts --forge accepts.
var Kinds = []Kind{GitHub, GitLab, Gitea, Bitbucket, BitbucketServer, Azure}

// ErrNotSupported is a Kind without a driver yet.
var ErrNotSupported = errors.New("not yet supported")
