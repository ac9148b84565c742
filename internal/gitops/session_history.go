package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/imagebot/imagebot/internal/rollout"
)

// The default branch's history, fetched in full by Open, is what rollouts
// are decided from: Session implements rollout.History and
// rollout.Statuses.
var (
	_ rollout.History  = (*Session)(nil)
	_ rollout.Statuses = (*Session)(nil)
)

// history is the default branch's first-parent history as far back as the
// session's walks have gone. A run walks it several times (once for each
// promoted environment, once to date the pre-pulls, a rollback's), each
// asking about other files; diffing a commit against its parent is most
// of a walk's cost, so each commit is diffed once per session and every
// walk reads the result. It holds at most rollout.MaxCommits commits,
// with the paths each changed: the run's memory grows with what it walked,
// never beyond the bound.
type history struct {
	objs  storer.EncodedObjectStorer
	base  string // the default branch, for errors
	mu    sync.Mutex
	steps []step // newest first; steps[0] is the tip
	// next is the commit to diff after the last step (the tip at first);
	// nil once the root is reached.
	next  *object.Commit
	diffs int // commits diffed, for tests to count
}

// step is one commit of the history and the paths it changed.
type step struct {
	commit rollout.Commit
	root   bool
	files  []changedFile
}

// changedFile is a path a commit changed, with its blob in the commit's
// first parent (zero: the commit added it).
type changedFile struct {
	name string
	blob plumbing.Hash
}

func newHistory(objs storer.EncodedObjectStorer, base string, tip *object.Commit) *history {
	return &history{objs: objs, base: base, next: tip}
}

func historyCommit(c *object.Commit) rollout.Commit {
	return rollout.Commit{Hash: c.Hash.String(), Time: c.Committer.When}
}

// Changes implements rollout.History over the fetched default branch: it
// walks first parents from the tip (the commits as they landed on the
// default branch: merges, squashes), at most rollout.MaxCommits of them,
// each diffed against its parent once per session.
func (s *Session) Changes(ctx context.Context, want func(string) bool, each func(rollout.Change) bool) error {
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := s.hist.at(ctx, n)
		if err != nil {
			return err
		}
		if ch := s.hist.change(st, want); len(ch.Before) > 0 && !each(ch) {
			return nil
		}
		if st.root {
			return nil
		}
		if n+1 == rollout.MaxCommits {
			return &rollout.TruncatedError{Oldest: st.commit}
		}
	}
}

// at is the n-th commit from the tip, diffed if no walk went that far yet.
// The lock is not held while a walk's callback runs: only here.
func (h *history) at(ctx context.Context, n int) (step, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(h.steps) <= n {
		c := h.next
		var parent *object.Commit
		if c.NumParents() > 0 {
			p, err := c.Parent(0)
			if err != nil {
				return step{}, fmt.Errorf("history of %s at %s: %w", h.base, c.Hash, err)
			}
			parent = p
		}
		files, err := changed(ctx, parent, c)
		if err != nil {
			return step{}, fmt.Errorf("history of %s at %s: %w", h.base, c.Hash, err)
		}
		h.diffs++
		h.steps = append(h.steps, step{commit: historyCommit(c), root: parent == nil, files: files})
		h.next = parent
	}
	return h.steps[n], nil
}

// change is what st changed among the files want asks about, with their
// content in its first parent.
func (h *history) change(st step, want func(string) bool) rollout.Change {
	ch := rollout.Change{Commit: st.commit, Before: map[string][]byte{}}
	for _, f := range st.files {
		if !want(f.name) {
			continue
		}
		ch.Before[f.name] = nil
		if f.blob.IsZero() {
			continue
		}
		// A blob that cannot be read is taken as absent, as a file of
		// the parent's tree that cannot be read always was.
		if b, err := readBlob(h.objs, f.blob); err == nil {
			ch.Before[f.name] = b
		}
	}
	return ch
}

// noRenames diffs without rename detection: a walk needs the paths a
// commit touched, which a rename's deletion and addition name as well,
// and pairing them would read every added and deleted blob.
var noRenames = &object.DiffTreeOptions{}

// changed lists the paths c changed, each with its blob in parent (nil
// parent: c is the root commit, which added everything).
func changed(ctx context.Context, parent, c *object.Commit) ([]changedFile, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	var out []changedFile
	if parent == nil {
		return rootFiles(tree)
	}
	ptree, err := parent.Tree()
	if err != nil {
		return nil, err
	}
	diffs, err := object.DiffTreeWithOptions(ctx, ptree, tree, noRenames)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, d := range diffs {
		if name := d.From.Name; name != "" && !seen[name] {
			seen[name] = true
			out = append(out, changedFile{name: name, blob: d.From.TreeEntry.Hash})
		}
		if name := d.To.Name; name != "" && !seen[name] {
			seen[name] = true
			out = append(out, changedFile{name: name})
		}
	}
	return out, nil
}

// rootFiles lists the files of the root commit's tree, which added them
// all: their names from the trees, no content read (tree.Files reads
// every blob).
func rootFiles(tree *object.Tree) ([]changedFile, error) {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	var out []changedFile
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if e.Mode != filemode.Dir && e.Mode != filemode.Submodule {
			out = append(out, changedFile{name: name})
		}
	}
}

// Statuses implements rollout.Statuses: the commit statuses and check runs
// on commit, as the host reports them.
func (s *Session) Statuses(ctx context.Context, commit string) (map[string]string, error) {
	return s.h.Statuses(ctx, commit)
}
