package job

import (
	"context"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
)

// Plan plans the working tree of o.Repo: it writes nothing but the
// registry cache. A plan whose lookups failed, or that found a dangling
// reference, comes with a *PartialError.
func Plan(ctx context.Context, o Options) (*Report, error) {
	e, p, err := planTree(ctx, &o)
	if err != nil {
		return nil, err
	}
	e.flush()
	rep := &Report{Plan: p}
	rep.Cost, rep.ChartCost = e.cost()
	return rep, planStatus(p)
}

// Apply plans the working tree of o.Repo, then writes each update into its
// files; it neither commits nor pushes. It comes with a *PartialError as
// Plan does.
func Apply(ctx context.Context, o Options) (*Report, error) {
	e, p, err := planTree(ctx, &o)
	if err != nil {
		return nil, err
	}
	var changes []plan.Change
	for _, u := range p.Updates {
		changes = append(changes, u.Changes...)
	}
	res, err := rewrite.Files(o.Repo, changes)
	if err != nil {
		return nil, err
	}
	p.Problems = append(p.Problems, res.Problems...)
	e.flush()
	rep := &Report{Plan: p, Changed: res.Changed}
	rep.Cost, rep.ChartCost = e.cost()
	return rep, planStatus(p)
}

// planTree plans the working tree of o.Repo: what plan prints and apply
// writes.
func planTree(ctx context.Context, o *Options) (*engine, *plan.Plan, error) {
	e, err := newEngine(o)
	if err != nil {
		return nil, nil, err
	}
	p, _, err := e.plan(ctx)
	if err != nil {
		return nil, nil, err
	}
	describePullRequests(e.cfg, p)
	return e, p, nil
}
