package gitops

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/rollout"
)

// The default branch's history, fetched in full by Open, is what rollouts
// are decided from: Session implements rollout.History and
// rollout.Statuses.
var (
	_ rollout.History  = (*Session)(nil)
	_ rollout.Statuses = (*Session)(nil)
)

func historyCommit(c *object.Commit) rollout.Commit {
	return rollout.Commit{Hash: c.Hash.String(), Time: c.Committer.When}
}

// Changes implements rollout.History over the fetched default branch: it
// walks first parents from the tip (the commits as they landed on the
// default branch: merges, squashes), at most rollout.MaxCommits of them,
// and diffs each against its parent.
func (s *Session) Changes(ctx context.Context, want func(string) bool, each func(rollout.Change) bool) error {
	c := s.tip
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var parent *object.Commit
		if c.NumParents() > 0 {
			p, err := c.Parent(0)
			if err != nil {
				return fmt.Errorf("history of %s at %s: %w", s.base, c.Hash, err)
			}
			parent = p
		}
		ch, err := changed(ctx, parent, c, want)
		if err != nil {
			return fmt.Errorf("history of %s at %s: %w", s.base, c.Hash, err)
		}
		if len(ch.Before) > 0 && !each(ch) {
			return nil
		}
		if parent == nil {
			return nil
		}
		if n+1 == rollout.MaxCommits {
			return &rollout.TruncatedError{Oldest: historyCommit(c)}
		}
		c = parent
	}
}

// changed is what c changed, among the files want asks about, with their
// content in parent (nil: added; a root commit added everything).
func changed(ctx context.Context, parent, c *object.Commit, want func(string) bool) (rollout.Change, error) {
	ch := rollout.Change{Commit: historyCommit(c), Before: map[string][]byte{}}
	tree, err := c.Tree()
	if err != nil {
		return ch, err
	}
	if parent == nil {
		err := tree.Files().ForEach(func(f *object.File) error {
			if want(f.Name) {
				ch.Before[f.Name] = nil
			}
			return nil
		})
		return ch, err
	}
	ptree, err := parent.Tree()
	if err != nil {
		return ch, err
	}
	diffs, err := ptree.DiffContext(ctx, tree)
	if err != nil {
		return ch, err
	}
	for _, d := range diffs {
		for _, name := range []string{d.From.Name, d.To.Name} {
			if name == "" || !want(name) {
				continue
			}
			if _, done := ch.Before[name]; done {
				continue
			}
			ch.Before[name] = nil
			if b, ok := fileAt(parent, name); ok {
				ch.Before[name] = b
			}
		}
	}
	return ch, nil
}

// Statuses implements rollout.Statuses: the commit statuses and check runs
// on commit, as GitHub reports them.
func (s *Session) Statuses(ctx context.Context, commit string) (map[string]string, error) {
	return s.h.statuses(ctx, commit)
}
