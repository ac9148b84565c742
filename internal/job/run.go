package job

import (
	"context"
	"errors"
	"io"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
)

// Phases of Run, as Progress hears them.
const (
	phaseTip     = "imagebot: fetch, scan and look up images"
	phasePRs     = "imagebot: branches and pull requests"
	phasePreview = "imagebot: scan and look up images"
)

// Run plans from the tip of the default branch of the GitHub repository
// o.Repo is a clone of, then opens one pull request per update (per
// group), updates the ones it opened before, and closes those no longer
// needed. Without a token or App it fails with ErrNoToken, or with
// o.DryRun previews every pull request from the working tree. The report
// is never nil.
func Run(ctx context.Context, o Options) (*RunReport, error) {
	rep := &RunReport{}
	log := o.logger()
	conn, acc, err := forgeConnection(&o, log)
	if err != nil {
		return rep, err
	}
	rep.Forge = acc.Kind
	if !acc.Credentials() {
		if o.DryRun {
			return preview(ctx, &o)
		}
		// Fail before the registry lookups, not after them.
		return rep, acc.NoToken(CmdRun)
	}

	endPlan := o.progress().Phase(phaseTip)
	sess, e, err := tipEngine(ctx, &o, conn)
	if err != nil {
		endPlan()
		var pe *PartialError
		if errors.As(err, &pe) { // GitHub or the remote could not be reached
			rep.Summary.Failed++
		}
		return rep, err
	}
	defer sess.Close()
	defer e.flush() // whatever happens after the lookups, keep what they learnt
	dash, err := readDashboard(ctx, e, sess)
	if err != nil {
		endPlan()
		return rep, &PartialError{explainForge(err, conn)}
	}
	p, scanned, err := e.plan(ctx)
	if err == nil {
		err = applyRollouts(ctx, e, sess, p, scanned.Refs, o.Version)
	}
	var drifted *drift.Report
	if err == nil && len(e.cfg.Clusters) > 0 {
		drifted = driftPins(ctx, o.Kube, e, scanned.Refs, p)
	}
	endPlan()
	if err != nil {
		return rep, err
	}
	describePullRequests(e.cfg, p)
	rep.Summary = summarize(p)
	rep.Summary.Drift = countDrift(drifted)
	ro := pullRequestOptions(e, o.DryRun, o.out())
	// A hook's run plans one image: what it does not plan it must not
	// close, nor rewrite the dashboard from.
	ro.Partial = len(o.Images) > 0
	if err := keepOptions(ctx, e, dash, &ro, conn.Repository, conn.Forge); err != nil {
		return rep, err
	}
	endPRs := o.progress().Phase(phasePRs)
	res, err := sess.Run(ctx, p, ro)
	endPRs()
	if err != nil {
		rep.Summary.Failed++
		return rep, &PartialError{explainForge(err, conn)}
	}
	if res.Stopped != "" {
		// Onboarding was declined: the run did nothing, and says so.
		rep.Stopped = res.Stopped
		return rep, nil
	}
	explainFailures(res, conn)
	p.Problems = append(p.Problems, res.Problems...)
	sum := &rep.Summary
	sum.Opened, sum.Updated, sum.Closed = len(res.Opened), len(res.Updated), len(res.Closed)
	sum.Failed += len(res.Failed)
	sum.RateLimited = len(res.RateLimited)
	// The pull request bodies may have cost requests too.
	rep.Plan, rep.Result = p, res
	rep.Cost, rep.ChartCost = e.cost()
	if sum.Failed > 0 || sum.RateLimited > 0 {
		return rep, partial()
	}
	return rep, nil
}

// preview is Run's dry run without a token: every PR shown from the
// working tree, none looked up, since without a token it cannot tell which
// already exist.
func preview(ctx context.Context, o *Options) (*RunReport, error) {
	rep := &RunReport{Preview: true}
	e, err := newEngine(o)
	if err != nil {
		return rep, err
	}
	defer e.flush()
	endPlan := o.progress().Phase(phasePreview)
	p, scanned, err := e.plan(ctx)
	var drifted *drift.Report
	if err == nil && len(e.cfg.Clusters) > 0 {
		drifted = driftPins(ctx, o.Kube, e, scanned.Refs, p)
	}
	endPlan()
	if err != nil {
		return rep, err
	}
	describePullRequests(e.cfg, p)
	rep.Summary = summarize(p)
	rep.Summary.Drift = countDrift(drifted)
	e.log.Info("no GITHUB_TOKEN: previewing from the working tree only")
	if err := gitops.Preview(p, o.Repo, e.cfg.Git.BranchPrefix, e.cfg.MajorMinorSeparate(), o.out()); err != nil {
		return rep, err
	}
	rep.Plan = p
	rep.Cost, rep.ChartCost = e.cost()
	return rep, planStatus(p)
}

// summarize counts what serve's metrics and the Actions outputs report of
// a plan, the same with a token or without.
func summarize(p *plan.Plan) Summary {
	sum := Summary{Updates: len(p.Updates)}
	for _, pr := range p.Problems {
		if pr.Kind == plan.KindDangling {
			sum.Dangling++
		}
		if pr.Failed {
			sum.Failed++
		} else {
			sum.Problems++
		}
	}
	return sum
}

// pullRequestOptions are what e's config says of branches, commits and
// PRs, with e's registry client describing the images in PR bodies; a dry
// run writes to out what it would do.
func pullRequestOptions(e *engine, dryRun bool, out io.Writer) gitops.RunOptions {
	cfg := e.cfg
	return gitops.RunOptions{
		BranchPrefix:       cfg.Git.BranchPrefix,
		Author:             object.Signature{Name: cfg.Git.Author.Name, Email: cfg.Git.Author.Email},
		Draft:              cfg.PullRequests.Draft,
		DryRun:             dryRun,
		Out:                out,
		Details:            e.reg.Info,
		SignedCommits:      cfg.Git.SignedCommits == config.SignedCommitsAPI,
		SeparateMajorMinor: cfg.MajorMinorSeparate(),
		Message: func(u plan.Update) (string, error) {
			return cfg.Git.Message(config.MessageData{Image: u.Image, From: u.From, To: u.To, Type: u.Type, Digest: u.Digest})
		},
		Meta: func(u plan.Update) gitops.Meta {
			pr := pullRequestFor(cfg, u)
			m := gitops.Meta{Labels: pr.Labels, Reviewers: pr.Reviewers}
			if pr.Automerge {
				m.Automerge = []string{u.Type}
			}
			return m
		},
	}
}
