package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/serve"
	"github.com/spf13/cobra"
)

// runOptions are the flags of `run` (and of each scheduled run of `serve`).
type runOptions struct {
	commonOptions
	DryRun bool
}

func newRunCmd(f *factory, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{commonOptions: newCommonOptions(f)}
	cmd := &cobra.Command{
		Use:   "run [DIR]",
		Short: "Plan, then one branch, commit and pull request per update",
		Long: `Run plans from the tip of the GitHub repository's default branch, then opens
one pull request per update (one per group), updates the ones it opened
before, and closes those no longer needed. DIR (default: the current
directory) is a clone of the repository: run reads its remote 'origin', never
its files, so a stale or dirty checkout changes nothing.

Run reads GITHUB_TOKEN (a token that may push branches and open pull
requests), GITHUB_API_URL (default https://api.github.com) and
GITHUB_REPOSITORY (default: from origin's URL), as GitHub Actions sets them.
Without a clone, GITHUB_REPOSITORY alone names the repository (on
GITHUB_SERVER_URL, default https://github.com).

--dry-run writes nothing: it prints each pull request it would open or
change, with its diff. Without GITHUB_TOKEN it previews from the working tree.`,
		Example: `  # In GitHub Actions, or locally with a token
  GITHUB_TOKEN=ghp_... imagebot run

  # See what it would do, without a token
  imagebot run --dry-run ./gitops

  # No clone at hand: name the repository
  GITHUB_REPOSITORY=acme/gitops GITHUB_TOKEN=ghp_... imagebot run`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			_, err := runJob(cmd.Context(), o)
			return err
		},
	}
	o.bind(cmd.Flags())
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "print the pull requests it would open or change; write nothing")
	return cmd
}

// errNoToken is run's message when neither GITHUB_TOKEN nor a GitHub App
// is set: it says where the token comes from in each place run is used.
var errNoToken = errors.New("GITHUB_TOKEN is not set: run needs a token that may push branches and open pull requests " +
	"(in GitHub Actions pass `token`/GITHUB_TOKEN; locally export GITHUB_TOKEN), or a GitHub App (IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY); or use --dry-run")

// runJob plans from the default branch's tip (tipEngine) and opens pull
// requests once; serve calls it on schedule.
func runJob(ctx context.Context, o *runOptions) (serve.Summary, error) {
	var sum serve.Summary
	conn, ok, err := githubConnection(o.commonOptions, o.logger())
	if err != nil {
		return sum, err
	}
	if !ok {
		if o.DryRun {
			return previewJob(ctx, o)
		}
		// Fail before the registry lookups, not after them.
		return sum, errNoToken
	}

	endPlan := logGroup(o.IO.ErrOut, o.Env, "imagebot: fetch, scan and look up images")
	sess, e, err := tipEngine(ctx, o.commonOptions, conn)
	if err != nil {
		endPlan()
		if exitCode(err) == exitPartial { // GitHub or the remote could not be reached
			sum.Failed++
		}
		return sum, err
	}
	defer sess.Close()
	defer e.flush() // whatever happens after the lookups, keep what they learnt
	dash, err := readDashboard(ctx, e, sess)
	if err != nil {
		endPlan()
		return sum, &partialError{explainGitHub(err, conn)}
	}
	p, scanned, err := e.plan(ctx)
	if err == nil {
		err = applyRollouts(ctx, e, sess, p, scanned.Refs)
	}
	endPlan()
	if err != nil {
		return sum, err
	}
	sum = summarize(p)
	ro := pullRequestOptions(e, o.DryRun, o.IO.Out)
	if err := keepOptions(ctx, e, dash, &ro); err != nil {
		return sum, err
	}
	endPRs := logGroup(o.IO.ErrOut, o.Env, "imagebot: branches and pull requests")
	res, err := sess.Run(ctx, p, ro)
	endPRs()
	if err != nil {
		sum.Failed++
		return sum, &partialError{explainGitHub(err, conn)}
	}
	if res.Stopped != "" {
		fmt.Fprintln(o.IO.Out, res.Stopped)
		return sum, nil
	}
	p.Problems = append(p.Problems, res.Problems...)
	sum.Opened, sum.Updated, sum.Closed = len(res.Opened), len(res.Updated), len(res.Closed)
	sum.Failed += len(res.Failed)
	sum.RateLimited = len(res.RateLimited)
	printRun(o.IO.Out, p, res, o.DryRun)
	printWaiting(o.IO.Out, p)
	// The pull request bodies may have cost requests too.
	e.report(o.Env, p, e.reg.Stats())
	if err := writeActionOutputs(o.Env, sum); err != nil {
		e.log.Warn("GitHub Actions outputs not written", "err", err)
	}
	if sum.Failed > 0 || sum.RateLimited > 0 {
		return sum, errPartial
	}
	return sum, nil
}

// previewJob is `run --dry-run` without a token: every PR shown from the
// working tree, none looked up, since without a token it cannot tell which
// already exist.
func previewJob(ctx context.Context, o *runOptions) (serve.Summary, error) {
	var sum serve.Summary
	e, err := newEngine(o.commonOptions)
	if err != nil {
		return sum, err
	}
	defer e.flush()
	endPlan := logGroup(o.IO.ErrOut, o.Env, "imagebot: scan and look up images")
	p, _, err := e.plan(ctx)
	endPlan()
	if err != nil {
		return sum, err
	}
	sum = summarize(p)
	e.log.Info("no GITHUB_TOKEN: previewing from the working tree only")
	if err := gitops.Preview(p, o.Repo, e.cfg.Git.BranchPrefix, o.IO.Out); err != nil {
		return sum, err
	}
	// What plan would print of them: the exit status must not be the
	// only trace of a failed lookup or a dangling reference.
	printProblems(o.IO.Out, p.Problems, o.Verbose)
	e.report(o.Env, p, e.reg.Stats())
	return sum, planStatus(p)
}

// summarize counts what serve's metrics and the Actions outputs report of
// a plan, the same with a token or without.
func summarize(p *plan.Plan) serve.Summary {
	sum := serve.Summary{Updates: len(p.Updates), Dangling: dangling(p)}
	for _, pr := range p.Problems {
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
// run prints to out what it would do.
func pullRequestOptions(e *engine, dryRun bool, out io.Writer) gitops.RunOptions {
	cfg := e.cfg
	return gitops.RunOptions{
		BranchPrefix:  cfg.Git.BranchPrefix,
		Author:        object.Signature{Name: cfg.Git.Author.Name, Email: cfg.Git.Author.Email},
		Draft:         cfg.PullRequests.Draft,
		DryRun:        dryRun,
		Out:           out,
		Details:       e.reg.Info,
		SignedCommits: cfg.Git.SignedCommits == config.SignedCommitsAPI,
		Message: func(u plan.Update) (string, error) {
			return cfg.Git.Message(config.MessageData{Image: u.Image, From: u.From, To: u.To, Type: u.Type, Digest: u.Digest})
		},
		Meta: func(u plan.Update) gitops.Meta {
			files := make([]string, 0, len(u.Locations))
			for _, l := range u.Locations {
				files = append(files, l.File)
			}
			pr := cfg.ForUpdate(u.Image, files, u.Type)
			m := gitops.Meta{Labels: pr.Labels, Reviewers: pr.Reviewers}
			if pr.Automerge {
				m.Automerge = []string{u.Type}
			}
			return m
		},
	}
}

// tipName names the commit run plans from in messages: "main@1a2b3c4d5e6f".
func tipName(sess *gitops.Session) string { return sess.Base() + "@" + sess.Commit()[:12] }

// printRun says what the run did, a line per branch: the pull request's
// number, link and title where it has one ("opened #12 https://... Update
// nginx to 1.27.3"), else the branch.
func printRun(w io.Writer, p *plan.Plan, r *gitops.Result, dryRun bool) {
	would := func(done, dry string) string {
		if dryRun {
			return dry
		}
		return done
	}
	for _, l := range []struct {
		what     string
		branches []string
	}{{would("opened", "would open"), r.Opened}, {would("updated", "would update"), r.Updated},
		{would("closed", "would close"), r.Closed}, {"unchanged", r.Unchanged},
		{"declined before", r.Declined}, {"left alone (commits imagebot did not make)", r.Foreign}} {
		for _, b := range l.branches {
			if pr, ok := r.PullRequests[b]; ok && pr.Number > 0 {
				fmt.Fprintf(w, "%s #%d %s %s\n", l.what, pr.Number, pr.URL, pr.Title)
			} else {
				fmt.Fprintf(w, "%s %s\n", l.what, b)
			}
		}
	}
	for _, err := range r.Failed {
		fmt.Fprintf(w, "failed: %v\n", err)
	}
	if n := len(r.RateLimited); n > 0 {
		fmt.Fprintf(w, "rate-limited: %d %s left for the next run\n", n, plural(n, "pull request", "pull requests"))
	}
	printProblems(w, p.Problems, false)
}
