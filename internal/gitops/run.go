package gitops

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
)

// runner is one Run: the plan's groups against what the remote and the
// host hold now.
type runner struct {
	o       RunOptions
	log     *slog.Logger
	clock   Clock
	h       Forge
	rm      *remote
	tip     *object.Commit
	base    string
	open    map[string]*Change   // imagebot's open PRs by branch
	closed  map[string][]*Change // closed PRs by branch, where asked: the bot's own only (loadClosed)
	limited bool                 // the host said stop writing
	me      Identity             // who the bot is (identify)
	by      func(login string) bool
	res     *Result
	// apiAuthor is who GitHub makes the author of the commits the run
	// creates through the API (RunOptions.SignedCommits); see gitdata.go.
	apiAuthor      object.Signature
	warnedUnsigned bool
	// carriers maps carriedKey to the branch of the image stream's group
	// that carries it this run (supersededComment).
	carriers map[string]string
}

// group brings one branch and its PR in line with the plan.
func (r *runner) group(ctx context.Context, g group) error {
	g = r.withoutDeclined(g)
	if len(g.Updates) == 0 {
		return nil
	}
	files, err := r.edits(g)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return nil // nothing left to write: the default branch has it already
	}
	tree, err := r.tree(files)
	if err != nil {
		return err
	}
	pr := r.open[g.Branch]
	branch := r.rm.branchTip(g.Branch)
	if branch != nil && !r.ours(branch) {
		return r.foreign(ctx, g, pr, branch)
	}
	push := branch == nil || !r.current(branch, tree, files)
	if push {
		done, err := r.pushCommit(ctx, g, tree, files, branch)
		if err != nil {
			return err
		}
		if done {
			// Another run pushed this very change meanwhile; it likely
			// opened the PR too, which this run's listing predates.
			push = false
			if pr == nil {
				if pr, err = r.openFor(ctx, g.Branch); err != nil {
					return err
				}
			}
		}
	}
	return r.pullRequest(ctx, g, pr, push)
}

// openFor looks up the bot's open PR of one branch, or nil.
func (r *runner) openFor(ctx context.Context, branch string) (*Change, error) {
	prs, err := r.h.Changes(ctx, r.query(Query{State: "open", Head: branch}))
	if err != nil {
		return nil, err
	}
	for _, pr := range prs {
		if r.mine(pr) {
			return pr, nil
		}
	}
	return nil, nil
}

// withoutDeclined drops the updates a human declined by closing their PR
// without merging ("not that version"), or by merging a rollback away from
// that version. A newer version is proposed anew. In a config group, a
// declined tag is declined for every member: the group moves together.
func (r *runner) withoutDeclined(g group) group {
	g = r.undeclined(g)
	if len(g.Updates) == 0 {
		r.res.Declined = append(r.res.Declined, g.Branch)
	}
	return g
}

// undeclined is g without what humans declined (withoutDeclined's rule),
// recording nothing.
func (r *runner) undeclined(g group) group {
	declined := make([]bool, len(g.Updates))
	declinedTo := map[string]bool{}
	for i, u := range g.Updates {
		if declined[i] = r.declined(g, u); declined[i] {
			declinedTo[u.To] = true
		}
	}
	var keep []plan.Update
	for i, u := range g.Updates {
		if !declined[i] && (g.Kind != kindGroup || !declinedTo[u.To]) {
			keep = append(keep, u)
		}
	}
	g.Updates = keep
	return g
}

// declined reports whether a closed PR of g's branch proposed u (on a
// major branch: any version of u's major line), or a merged rollback PR
// moved u's image away from u's target. r.closed holds only the bot's own
// PRs, from the repository's own branches.
func (r *runner) declined(g group, u plan.Update) bool {
	if d := r.o.Dashboard; d != nil && d.Controls.Again[againID(g, u)] {
		return false // ticked "propose again" on the dashboard
	}
	if r.decliner(g, u) != nil {
		return true
	}
	if g.Kind == plan.KindRollback {
		return false // a person asked for this one
	}
	for _, pr := range r.closed[rollbackBranch(r.o.BranchPrefix, u.Image)] {
		if m, ok := prMarker(pr); ok && pr.Merged && m.rollsBack(u) {
			return true
		}
	}
	return false
}

// decliner is the closed PR that declined u on g's branch, or nil: one
// that proposed exactly u, or, on a major branch (separateMajorMinor), one
// that proposed a major move of u's image into the major line of u's
// target: closing a major PR declines that major, whose later releases
// wait for a tick on the dashboard. A stream's major PRs of releases
// before separateMajorMinor were on the stream's own branch: their
// declines count for its major branch too.
func (r *runner) decliner(g group, u plan.Update) *Change {
	for _, pr := range r.closed[g.Branch] {
		if m, ok := prMarker(pr); ok && !pr.Merged && (m.proposes(u) || g.Major && m.declinesLine(u)) {
			return pr
		}
	}
	if g.Major && g.Kind == "" {
		for _, pr := range r.closed[strings.TrimSuffix(g.Branch, majorSuffix)] {
			if m, ok := prMarker(pr); ok && !pr.Merged && m.declinesLine(u) {
				return pr
			}
		}
	}
	return nil
}

// edits applies the group's changes to the default branch's files, then
// its whole-file edits (the pre-pull DaemonSet, which may not exist yet).
func (r *runner) edits(g group) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, fc := range rewrite.ByFile(g.changes()) {
		f, cs := fc.File, fc.Changes
		src, ok := fileAt(r.tip, f)
		if !ok {
			return nil, fmt.Errorf("%s is not on %s's tip %s: plan from the session's tree", f, r.base, r.tip.Hash)
		}
		out, skipped, err := rewrite.Bytes(src, cs)
		r.res.Problems = append(r.res.Problems, skipped...)
		if errors.Is(err, rewrite.ErrStale) {
			return nil, fmt.Errorf("%s differs from %s's tip %s: plan from the session's tree", f, r.base, r.tip.Hash)
		}
		if err != nil {
			return nil, err
		}
		// A Chart.yaml's lock changes in the same commit, or neither does.
		lock, lockOut, err := rewrite.Lock(f, cs, src, out, func(name string) ([]byte, bool) { return fileAt(r.tip, name) })
		if err != nil {
			r.res.Problems = append(r.res.Problems, plan.Problem{File: f, Line: cs[0].Ref.Line, Message: err.Error()})
			continue
		}
		if lock != "" {
			files[lock] = lockOut
		}
		if string(out) != string(src) {
			files[f] = out
		}
	}
	for _, u := range g.Updates {
		for _, fe := range u.Files {
			orig, _ := fileAt(r.tip, fe.Path)
			cur, ok := files[fe.Path]
			if !ok {
				cur = orig
			}
			out, err := fe.Apply(cur)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fe.Path, err)
			}
			if string(out) == string(orig) {
				delete(files, fe.Path)
			} else {
				files[fe.Path] = out
			}
		}
	}
	return files, nil
}

func (r *runner) tree(files map[string][]byte) (plumbing.Hash, error) {
	st := r.rm.repo.Storer
	blobs := map[string]plumbing.Hash{}
	for f, b := range files {
		h, err := writeBlob(st, b)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		blobs[f] = h
	}
	root, err := r.tip.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return editTree(st, root, blobs)
}

// byBot reports whether login is the bot's: the identity the run acts as
// or, when that had to be assumed (an installation token cannot ask who it
// is, and an App's token passed as GITHUB_TOKEN is not
// github-actions[bot]), any App's bot user ("<slug>[bot]"). Only an App
// that a repository's admin installed can open a PR there as one; no
// person can.
func (r *runner) byBot(id Identity) func(login string) bool {
	return func(login string) bool {
		return strings.EqualFold(login, id.Login) ||
			(id.Assumed && strings.HasSuffix(strings.ToLower(login), "[bot]"))
	}
}

// identify asks who the bot is, once a run (the host keeps the answer):
// the author of its change requests.
func (r *runner) identify(ctx context.Context) error {
	if r.by != nil {
		return nil
	}
	id, err := r.h.WhoAmI(ctx)
	if err != nil {
		return err
	}
	r.me, r.by = id, r.byBot(id)
	return nil
}

// query is q of the bot's change requests into the default branch: by its
// login where the host can filter by it, unless that had to be assumed.
func (r *runner) query(q Query) Query {
	q.Base = r.base
	if !r.me.Assumed {
		q.Author = r.me.Login
	}
	return q
}

// mine reports whether c is the bot's own: opened by the bot's identity,
// from the repository's own branch (not a fork), into the default branch.
// Anything else on a branch named like the bot's is someone else's,
// whatever its body says: never adopted, edited, closed or counted as a
// decline.
func (r *runner) mine(c *Change) bool {
	return c.OwnBranch && c.Base == r.base && r.by != nil && r.by(c.Author)
}

// ours reports whether imagebot made the branch's tip: one commit, authored
// and committed by the bot: as configured when pushed, as GitHub's bot when
// made through the API. Anything else is a person's work and is never
// overwritten.
func (r *runner) ours(c *object.Commit) bool {
	return c.NumParents() == 1 && (madeBy(c, r.o.Author.Email) || r.madeThroughAPI(c))
}

// current reports whether the branch already proposes exactly these files
// and still applies cleanly: on the tip itself, or on an older base whose
// versions of these files the default branch has not changed since. Then
// pushing again would only churn the PR's CI.
func (r *runner) current(branch *object.Commit, tree plumbing.Hash, files map[string][]byte) bool {
	parent, err := branch.Parent(0)
	if err != nil {
		return false
	}
	if parent.Hash == r.tip.Hash {
		return branch.TreeHash == tree
	}
	changes, err := diffPaths(parent, branch)
	if err != nil || !slices.Equal(changes, sortedKeys(files)) {
		return false
	}
	for f, want := range files {
		got, ok := fileAt(branch, f)
		// A file the branch adds is absent from both, which is the same.
		before, ok2 := fileAt(parent, f)
		now, ok3 := fileAt(r.tip, f)
		if !ok || ok2 != ok3 || string(got) != string(want) || string(before) != string(now) {
			return false
		}
	}
	return true
}

func diffPaths(a, b *object.Commit) ([]string, error) {
	ta, err := a.Tree()
	if err != nil {
		return nil, err
	}
	tb, err := b.Tree()
	if err != nil {
		return nil, err
	}
	cs, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range cs {
		name := c.To.Name
		if name == "" {
			name = c.From.Name
		}
		paths = append(paths, name)
	}
	slices.Sort(paths)
	return paths, nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
