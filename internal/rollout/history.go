package rollout

import (
	"context"
	"fmt"
	"time"

	"github.com/imagebot/imagebot/internal/timefmt"
)

// Commit is one commit of the default branch.
type Commit struct {
	Hash string
	// Time is the committer time: for a merged pull request, when the
	// merge reached the default branch.
	Time time.Time
}

// Short is the commit's abbreviated hash, as GitHub shows it.
func (c Commit) Short() string {
	if len(c.Hash) > 12 {
		return c.Hash[:12]
	}
	return c.Hash
}

// Change is a commit of the default branch's first-parent history that
// changed files a walk asks about.
type Change struct {
	Commit
	// Before holds each changed file as it was in the commit's first
	// parent; a file the commit added is there with nil content.
	Before map[string][]byte
}

// History is the default branch's first-parent history, newest first.
type History interface {
	// Changes walks back from the tip along first parents and calls each
	// for every commit that changed a file for which want is true, the
	// root commit included (its files were all added), until each returns
	// false. A walk that stops at its bound before the root returns a
	// *TruncatedError.
	Changes(ctx context.Context, want func(file string) bool, each func(Change) bool) error
}

// TruncatedError says the history was walked no further than Oldest:
// whatever held then has held since before it.
type TruncatedError struct {
	Oldest Commit
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("history walked back to %s (%s) and no further", e.Oldest.Short(), timefmt.Stamp(e.Oldest.Time))
}

// Statuses tells what GitHub says of a commit.
type Statuses interface {
	// Statuses returns the state of every commit status context and check
	// run on commit, by name: "success", or anything else ("failure",
	// "pending", "in_progress", "neutral", ...). The newest report of a
	// name wins.
	Statuses(ctx context.Context, commit string) (map[string]string, error)
}
