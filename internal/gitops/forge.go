package gitops

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Forge is what a run needs from the git host that holds the repository:
// its change requests (GitHub's and Gitea's pull requests, GitLab's merge
// requests), the dashboard issue, commit statuses, and who the bot is.
// Everything else a run does is git, over smart HTTP, and the same on
// every host. The lifecycle (session.go, run.go, pr.go, onboard.go,
// dashview.go) speaks only Forge; each host is one implementation
// (github*.go, gitlab*.go, gitea*.go), chosen by Options.Forge.
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
	// page, before anything of it is kept, so that other people's
	// change requests (thousands, from forks, with long bodies) cost
	// the run neither memory nor more than their pages.
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

	// gitCredentials are what git authenticates to the host's remote
	// with: the user name and the token, its password.
	gitCredentials() (user string, c credentials)
}

// SignedCommits is what a Forge may offer beyond Forge: making a commit
// itself through its API, which the host authors as the token's bot and
// signs (GitHub's Git Data API; RunOptions.SignedCommits). A host without
// it refuses that option.
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

// Kind names a host's implementation (Options.Forge).
type Kind string

const (
	GitHub Kind = "github"
	GitLab Kind = "gitlab"
	Gitea  Kind = "gitea" // and Forgejo
)

// Kinds are the hosts --forge accepts.
var Kinds = []Kind{GitHub, GitLab, Gitea}

// ErrNotSupported is a Kind without an implementation yet.
var ErrNotSupported = errors.New("not yet supported")

// newForge connects to the host o.Forge names ("" is GitHub).
func newForge(ctx context.Context, o Options) (Forge, error) {
	switch o.Forge {
	case "", GitHub:
		return newGitHub(ctx, o)
	case GitLab:
		return newGitLab(o)
	case Gitea:
		return newGitea(ctx, o)
	}
	return nil, fmt.Errorf("--forge %q: want one of github, gitlab, gitea", o.Forge)
}

// blobURL links a file's line (0: none) at commit under page, the host's
// web path of a repository's files at a commit ("https://github.com/o/r/blob";
// GitLab's ".../-/blob", Gitea's ".../src/commit"). Every host anchors a
// line as #L12.
func blobURL(page, commit, file string, line int) string {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	u := page + "/" + commit + "/" + strings.Join(parts, "/")
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// splitReviewers parts reviewers into people and the owner's teams,
// named "owner/team", by their name alone, as GitHub and Gitea take them.
func splitReviewers(owner string, reviewers []string) (users, teams []string) {
	for _, r := range reviewers {
		if t, ok := strings.CutPrefix(r, owner+"/"); ok {
			teams = append(teams, t)
		} else {
			users = append(users, r)
		}
	}
	return users, teams
}

// Repository is what a run reads of the repository itself.
type Repository struct {
	DefaultBranch string
	// URL is its web page ("https://github.com/o/r"), for links.
	URL string
	// Push says the token may push to it; Known is false when the host
	// did not say (a GitHub App's token is not told).
	Push, Known bool
}

// Identity is the login the bot's change requests and comments are made
// as. Assumed is true when the host would not say (a GitHub installation
// token cannot ask who it is) and a likely one is taken.
type Identity struct {
	Login   string
	Assumed bool
}

// Change is a change request as the lifecycle reads it: a pull request
// on GitHub and Gitea, a merge request on GitLab.
type Change struct {
	Number int
	ID     string // the host's global id, where an API needs it (GitHub's node ID)
	URL    string // its web page
	Title  string
	Body   string
	Author string // its author's login
	// Head is its source branch; OwnBranch says it is in the repository
	// itself, not in a fork: only writers can push there. Base is the
	// branch it merges into.
	Head      string
	OwnBranch bool
	Base      string
	State     string // "open" or "closed" (a merged one is closed too)
	Merged    bool
	Labels    []string
	// Created is when it was opened, as the host says (zero when it does
	// not): what pullRequests.perHour counts.
	Created time.Time
}

// Query says which change requests a listing keeps: always those from
// the repository's own branches (only writers can push there), never a
// fork's.
type Query struct {
	State  string // "open", "closed" or "all"
	Head   string // the head branch, exactly; "" for any
	Prefix string // the head branch's prefix, when Head is ""
	Base   string // the branch it would merge into; "" for any
	// Author is the login that opened it; "" for anyone. The host's
	// filter is case-insensitive, as logins are.
	Author string
}

// keeps reports whether q keeps c: what a host could not filter by is
// checked here, page by page.
func (q Query) keeps(c *Change) bool {
	switch {
	case !c.OwnBranch,
		q.State == "open" && c.State != "open",
		q.State == "closed" && c.State != "closed",
		q.Head != "" && c.Head != q.Head,
		q.Head == "" && !strings.HasPrefix(c.Head, q.Prefix),
		q.Base != "" && c.Base != q.Base,
		q.Author != "" && !strings.EqualFold(c.Author, q.Author):
		return false
	}
	return true
}

// NewChange is a change request to open.
type NewChange struct {
	Title, Body, Head, Base string
	Draft                   bool
}

// ChangeEdit is a change to a change request: nil fields are left alone.
type ChangeEdit struct {
	Title, Body *string
	Close       bool
}

// Issue is an issue as the dashboard reads it.
type Issue struct {
	Number  int
	URL     string
	Title   string
	Body    string
	Author  string
	Labels  []string
	Created time.Time
}

// ErrIssuesOff is a repository with issues turned off.
var ErrIssuesOff = errors.New("issues are turned off")

// TreeFile is one file of a tree made through the API.
type TreeFile struct {
	Path    string
	Mode    uint32 // git's: 0100644, 0100755
	Content []byte
}

// APICommit is a commit a host made (SignedCommits.CreateCommit).
type APICommit struct {
	SHA               string
	Verified          bool
	Reason            string // why it is not verified
	AuthorName, Email string
}

// RateLimitError is a host refusing for a rate limit, beyond the wait a
// run allows (Options.MaxWait): the run then writes nothing more, and
// leaves what is left to the next run. It reads as the host's error.
type RateLimitError struct {
	Err error
}

func (e *RateLimitError) Error() string { return e.Err.Error() }
func (e *RateLimitError) Unwrap() error { return e.Err }
