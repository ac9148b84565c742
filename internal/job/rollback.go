package job

import (
	"context"
	"errors"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rollout"
)

// RollbackOptions say which image Rollback moves back, and to what.
type RollbackOptions struct {
	Options
	// Image is the normalized image name (imagename.Normalize), or a
	// chart's as policies match it (REPOSITORY_URL/CHART).
	Image string
	// To is the tag to go back to; "" is the tag the references had before
	// the commit that brought the current one on the default branch.
	To string
}

// Rollback opens one pull request moving every reference of o.Image back,
// from the default branch's tip as Run plans. Without a token or App it
// fails with ErrNoToken. The report is never nil; its Plan is set once
// there is one to show (with no update and no Result when the image is
// at To already), and its Cost once the registry client was made.
func Rollback(ctx context.Context, o RollbackOptions) (*RunReport, error) {
	rep := &RunReport{}
	conn, acc, err := forgeConnection(&o.Options, o.logger())
	if err != nil {
		return rep, err
	}
	rep.Forge = acc.Kind
	if !acc.Credentials() {
		return rep, acc.NoToken(CmdRollback)
	}
	sess, e, err := tipEngine(ctx, &o.Options, conn)
	if err != nil {
		return rep, err
	}
	defer sess.Close()
	// Keep what the lookups learnt for the next command with --cache, as
	// plan, apply and run do, whatever happens after them.
	defer e.flush()
	// What the rollback cost the registries is logged whatever happens
	// after the engine is up, after the pull request: its body may have
	// cost requests too (runs before flush). A lookup that failed on 429s
	// is when the counts matter most.
	defer func() { rep.Cost, rep.ChartCost = e.cost() }()
	res, err := e.scan(ctx)
	if err != nil {
		return rep, err
	}
	u, err := rollout.Rollback(ctx, append(res.Refs, res.Charts...), rollout.RollbackOptions{
		Image: o.Image, To: o.To, History: sess, Tip: tipName(sess), Registry: e.reg, Charts: versionLists{chartIndexes{e.charts}, gitTags{e.git}},
	})
	var lookup *rollout.LookupError
	if errors.As(err, &lookup) {
		return rep, &PartialError{err}
	}
	if err != nil {
		return rep, err
	}
	if u == nil {
		rep.Plan = &plan.Plan{}
		return rep, nil
	}
	p := &plan.Plan{Updates: []plan.Update{*u}}
	ro := pullRequestOptions(e, o.DryRun, o.out())
	ro.Partial = true
	out, err := sess.Run(ctx, p, ro)
	if err != nil {
		return rep, &PartialError{explainForge(err, conn)}
	}
	rep.Plan, rep.Result = p, out
	if len(out.Failed) > 0 || len(out.RateLimited) > 0 {
		return rep, partial()
	}
	return rep, nil
}
