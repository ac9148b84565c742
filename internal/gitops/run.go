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
	"github.com/google/go-github/v60/github"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
)

// Run turns the plan into pull requests: for each image stream one branch
// holding one commit on the default branch's tip, and one PR. It recomputes
// everything from the remote's branches and PRs, so reruns are idempotent.
func Run(ctx context.Context, p *plan.Plan, o Options) (*Result, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.BranchPrefix == "" {
		o.BranchPrefix = "imagebot/"
	}
	h, err := newHub(o)
	if err != nil {
		return nil, err
	}
	base, err := h.defaultBranch(ctx)
	if err != nil {
		return nil, err
	}
	rm, err := openRemote(ctx, o.URL, o.Token, base, o.BranchPrefix)
	if err != nil {
		return nil, err
	}
	tip, err := rm.baseTip()
	if err != nil {
		return nil, err
	}
	open, err := h.pulls(ctx, "open", "")
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, h: h, rm: rm, tip: tip, base: base, open: map[string]*github.PullRequest{}, res: &Result{}}
	for _, pr := range open {
		if strings.HasPrefix(pr.GetHead().GetRef(), o.BranchPrefix) {
			r.open[pr.GetHead().GetRef()] = pr
		}
	}
	handled := map[string]bool{}
	carried := map[string]string{}
	for branch, pr := range r.open {
		if m, ok := parseMarker(pr.GetBody()); ok {
			for _, mv := range m.Updates {
				carried[m.Image+"\x00"+mv.From] = branch
			}
		}
	}
	for _, g := range groupsKeeping(p, o.BranchPrefix, carried) {
		handled[g.Branch] = true
		if err := r.group(ctx, g); err != nil {
			o.Logger.Error("pull request failed", "branch", g.Branch, "err", err)
			r.res.Failed = append(r.res.Failed, fmt.Errorf("%s: %w", g.Branch, err))
		}
	}
	r.closeObsolete(ctx, p, handled)
	return r.res, nil
}

type runner struct {
	o    Options
	h    *hub
	rm   *remote
	tip  *object.Commit
	base string
	open map[string]*github.PullRequest
	res  *Result
}

// group brings one branch and its PR in line with the plan.
func (r *runner) group(ctx context.Context, g group) error {
	g, err := r.withoutDeclined(ctx, g)
	if err != nil || len(g.Updates) == 0 {
		return err
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
		if err := r.pushCommit(ctx, g, tree, files); err != nil {
			return err
		}
	}
	return r.pullRequest(ctx, g, pr, push)
}

// withoutDeclined drops the updates a human declined by closing their PR
// without merging: "not that version". A newer version is proposed anew.
func (r *runner) withoutDeclined(ctx context.Context, g group) (group, error) {
	closed, err := r.h.pulls(ctx, "closed", g.Branch)
	if err != nil {
		return g, err
	}
	var keep []plan.Update
	for _, u := range g.Updates {
		declined := false
		for _, pr := range closed {
			m, ok := parseMarker(pr.GetBody())
			if ok && pr.MergedAt == nil && m.Image == u.Image && m.proposes(u) {
				declined = true
			}
		}
		if !declined {
			keep = append(keep, u)
		}
	}
	if len(keep) == 0 {
		r.res.Declined = append(r.res.Declined, g.Branch)
	}
	g.Updates = keep
	return g, nil
}

// edits applies the group's changes to the default branch's files.
func (r *runner) edits(g group) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, fc := range rewrite.ByFile(g.changes()) {
		f, cs := fc.File, fc.Changes
		src, ok := fileAt(r.tip, f)
		if !ok {
			return nil, fmt.Errorf("%s is not on %s: run on a checkout of its tip", f, r.base)
		}
		out, skipped, err := rewrite.Bytes(src, cs)
		r.res.Problems = append(r.res.Problems, skipped...)
		if errors.Is(err, rewrite.ErrStale) {
			return nil, fmt.Errorf("%s differs from %s's tip: run on a checkout of its tip", f, r.base)
		}
		if err != nil {
			return nil, err
		}
		if string(out) != string(src) {
			files[f] = out
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

// ours reports whether imagebot made the branch's tip: one commit, authored
// and committed by the bot. Anything else is a person's work and is never
// overwritten.
func (r *runner) ours(c *object.Commit) bool {
	return c.NumParents() == 1 &&
		c.Author.Email == r.o.Author.Email && c.Committer.Email == r.o.Author.Email
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
		before, ok2 := fileAt(parent, f)
		now, ok3 := fileAt(r.tip, f)
		if !ok || !ok2 || !ok3 || string(got) != string(want) || string(before) != string(now) {
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
