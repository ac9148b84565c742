package gitops

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// Options say where the repository is and how to talk to it. The
// environment of GitHub Actions fills most of them: GITHUB_TOKEN,
// GITHUB_API_URL and GITHUB_REPOSITORY.
type Options struct {
	// Forge is the kind of host the repository is on ("" is GitHub):
	// the implementation of Forge that Open connects with.
	Forge      Kind
	URL        string // git remote to push to; the local clone's origin
	Repository string // "owner/name" (GitLab: the project's full path)
	APIURL     string // "https://api.github.com" or "https://ghe.example.com/api/v3"
	Token      string // API token and git password; never printed
	User       string // the account Token is, where the host wants it (forge.Config.User)
	// App, when set, is what the run authenticates as instead of Token:
	// its installation's tokens are the API token and git password, each
	// refreshed before it expires.
	App *App

	Logger     *slog.Logger
	HTTPClient *http.Client  // the host's API client (tests); default retries rate limits
	MaxWait    time.Duration // longest wait for a rate limit; default 1 minute
	// Clock is the time rate limits are waited out in; nil is the real
	// one. Tests pass a fake so that a Retry-After costs no real time.
	Clock Clock
	// GitCache, when set, is a directory where the packs a run fetches
	// are kept for the next runs (packcache.go): a rerun then downloads
	// only what is new, and nothing when no branch moved. GitCacheMaxBytes
	// bounds a repository's packs there (0: 256 MiB).
	GitCache         string
	GitCacheMaxBytes int64
}

// RunOptions say what the branches and pull requests of a run look like.
// They come from the config, which is read from the tree Open fetched.
type RunOptions struct {
	BranchPrefix string           // "imagebot/"
	Author       object.Signature // commit author and committer (When is set per commit)
	// Message renders a commit message for an update.
	Message func(plan.Update) (string, error)
	// Meta gives the labels, reviewers and auto-merge types for an
	// update: they may depend on its type and on the files it changes.
	Meta  func(plan.Update) Meta
	Draft bool
	// SignedCommits creates each commit through GitHub's Git Data API
	// instead of pushing it over git: GitHub authors it as the token's bot
	// (Author is not used) and signs it, so that it shows as Verified.
	SignedCommits bool
	// Details, when set, fetches what the registry says about a new image
	// (source, created time) for a PR body. It is called only when a body is
	// written, so a rerun that changes nothing costs no manifest request.
	Details func(ctx context.Context, ref name.Tag) (*registry.Info, error)

	// Partial runs a plan that is not the whole repository's (a
	// rollback's): the PRs it does not mention are left alone rather than
	// closed as no longer needed.
	Partial bool

	// Limits (DESIGN.md "Dashboard and limits"): MaxOpen caps the bot's
	// open PRs, PerHour the PRs it opened in the hour before the run's
	// clock says now (its own PRs on the host, open or closed, by their
	// creation times), PerRun the PRs one run opens; 0 is no cap. Beyond
	// them an update waits on the dashboard, in the order of limits.go,
	// until a slot frees up; an open PR is kept current whatever the
	// limits. The config's defaults are calm (config.DefaultMaxOpen,
	// DefaultPerHour); these options are what the caller says.
	MaxOpen, PerHour, PerRun int
	// SeparateMajorMinor proposes a stream's (or config group's) major
	// update and the newest within its current major (plan.Update.Minor)
	// in two PRs, on two branches: closing the major's declines that
	// major line, closing the other that version (config
	// separateMajorMinor). Off, a stream has one PR, the newest version.
	SeparateMajorMinor bool
	// Approval, when set, reports whether an update waits on the
	// dashboard until someone ticks it (config approval).
	Approval func(plan.Update) bool
	// Dashboard, when set, is the dashboard issue Session.Dashboard found
	// (Number 0: none yet) and is kept: its ticks are read, and its body
	// is rewritten when its content changes. Title names a new one.
	Dashboard      *Dashboard
	DashboardTitle string
	// Onboarding, when set, replaces the run: it keeps one "Configure
	// imagebot" PR adding the config, and opens nothing else (onboard.go).
	Onboarding *Onboarding

	// DryRun reads but writes nothing: no push, no API write. What would be
	// done is written to Out: title, body and diff of each PR.
	DryRun bool
	Out    io.Writer
}

// Meta is what a policy adds to a PR.
type Meta struct {
	Labels, Reviewers []string
	Automerge         []string // update types that may merge themselves
}

// Result says what a run did. Each entry is a branch name.
type Result struct {
	Opened, Updated, Closed, Unchanged, Declined, Foreign []string
	// Failed are the PRs that could not be made; the others still were.
	Failed []error
	// RateLimited are the branches left for the next run because GitHub
	// asked for a pause longer than Options.MaxWait: once it does, the
	// run stops writing rather than fail each remaining PR on its own.
	RateLimited []string
	// Waiting are the branches whose PR waits for a slot (MaxOpen,
	// PerHour, PerRun); AwaitingApproval those that wait for a tick.
	Waiting, AwaitingApproval []string
	// Limits says the limits that held updates back ("at most 10 open,
	// 2 an hour"), "" when none did.
	Limits string
	// Dashboard is the dashboard issue's number, 0 when none is kept.
	Dashboard int
	// Stopped says why the run did nothing (an onboarding PR closed
	// without merging), "" otherwise.
	Stopped string
	// Problems are changes that could not be written into a file.
	Problems []plan.Problem
	// PullRequests are the pull requests of the branches above, by branch,
	// for people to open: a PR a dry run would open has none yet.
	PullRequests map[string]PullRequest
	// Updates are the plan's updates by the branch that carries them, for
	// a report to say what each PR holds.
	Updates map[string][]plan.Update
}

// PullRequest is one pull request a run opened, updated, left or closed.
type PullRequest struct {
	Number int
	URL    string // its page on GitHub
	Title  string
}
