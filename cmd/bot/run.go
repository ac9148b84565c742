package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/plan"
)

// runOptions are the flags of `run` (and of each scheduled run of `serve`).
type runOptions struct {
	commonOptions
	DryRun     bool
	Kubeconfig string // --kubeconfig: the clusters of clusters: (drift)
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
			return runRun(cmd.Context(), o)
		},
	}
	o.bind(cmd.Flags())
	o.bindForge(cmd.Flags())
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "print the pull requests it would open or change; write nothing")
	bindKubeconfig(cmd, &o.Kubeconfig)
	return cmd
}

// runRun plans from the default branch's tip and opens pull requests
// (job.Run), then says what it did.
func runRun(ctx context.Context, o *runOptions) error {
	jo, err := o.hostJob(o.DryRun)
	if err != nil {
		return err
	}
	jo.Kube = job.Kube{Kubeconfig: o.Kubeconfig}
	// Without the host's token, err is the host's own message for run
	// (job.Access.NoToken).
	rep, err := job.Run(ctx, jo)
	o.reportRun(o.IO.Out, rep, o.DryRun)
	return err
}

// reportRun prints what a run did, once it got to the end: the pull
// requests (or, previewed without a token, the plan's problems: the exit
// status must not be the only trace of a failed lookup or a dangling
// reference), and in GitHub Actions its step summary, annotations and
// outputs. serve calls it for each repository.
func (o *commonOptions) reportRun(w io.Writer, rep *job.RunReport, dryRun bool) {
	if rep.Stopped != "" {
		fmt.Fprintln(w, rep.Stopped)
		return
	}
	if rep.Plan == nil {
		return
	}
	if rep.Preview {
		if len(rep.Plan.Updates) > 0 {
			fmt.Fprintln(w, "pull requests would carry:")
			printCarried(w, "  ", rep.Plan.Updates)
		}
		printProblems(w, rep.Plan.Problems, o.Verbose)
		annotate(o.IO.ErrOut, o.Env, rep.Plan, runCost{rep.Cost, rep.ChartCost})
		return
	}
	printRun(w, rep.Plan, rep.Result, dryRun, o.Verbose, hostWords(rep.Forge))
	printWaiting(w, rep.Plan)
	annotate(o.IO.ErrOut, o.Env, rep.Plan, runCost{rep.Cost, rep.ChartCost})
	if err := writeActionOutputs(o.Env, rep.Summary); err != nil {
		o.logger().Warn("GitHub Actions outputs not written", "err", err)
	}
}

// printRun says what the run did, a line per branch: the pull request's
// number, link and title where it has one ("opened #12 https://... Update
// nginx to 1.27.3"), else the branch. The pull requests held back (waiting
// for a slot or an approval) are one line each kind, with their number:
// a repository may hold a hundred every run, and the dashboard lists them;
// --verbose and --dry-run name them.
func printRun(w io.Writer, p *plan.Plan, r *gitops.Result, dryRun, verbose bool, hw words) {
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
		{"declined before", r.Declined}, {"left alone (commits imagebot did not make)", r.Foreign},
		{would("waiting for a slot", "would wait for a slot"), r.Waiting},
		{would("awaiting approval", "would await approval"), r.AwaitingApproval}} {
		if held := slices.Contains([]string{"waiting for a slot", "awaiting approval"}, l.what); held && !verbose && len(l.branches) > 0 {
			n := len(l.branches)
			where := ""
			if l.what == "waiting for a slot" && r.Limits != "" {
				where = "pullRequests: " + r.Limits + "; "
			}
			if r.Dashboard != 0 {
				where += fmt.Sprintf("the dashboard lists %s; ", plural(n, "it", "them"))
			}
			fmt.Fprintf(w, "%s: %d %s (%s--verbose names %s)\n", l.what, n, plural(n, hw.one, hw.many), where, plural(n, "it", "them"))
			continue
		}
		for _, b := range l.branches {
			if pr, ok := r.PullRequests[b]; ok && pr.Number > 0 {
				fmt.Fprintf(w, "%s %s%d %s %s\n", l.what, hw.sigil, pr.Number, pr.URL, pr.Title)
			} else {
				fmt.Fprintf(w, "%s %s\n", l.what, b)
			}
			if dryRun && !slices.Contains(r.Closed, b) {
				// What each PR carries, as the dry run's preview of it.
				printCarried(w, "    ", r.Updates[b])
			}
		}
	}
	if n := len(r.Waiting); n > 0 && r.Limits != "" && verbose {
		fmt.Fprintf(w, "%d %s %s for a slot (pullRequests: %s); the dashboard lists them\n",
			n, plural(n, "update", "updates"), would(plural(n, "waits", "wait"), "would wait"), r.Limits)
	}
	for _, err := range r.Failed {
		fmt.Fprintf(w, "failed: %v\n", err)
	}
	if n := len(r.RateLimited); n > 0 {
		fmt.Fprintf(w, "rate-limited: %d %s left for the next run\n", n, plural(n, hw.one, hw.many))
	}
	printProblems(w, p.Problems, false)
}

// words are what the host calls a change request, and how it numbers one:
// "pull request" and #12, GitLab's "merge request" and !12, Azure DevOps'
// pull request !12, as the bot writes them there (gitops.WordsOf).
type words struct{ one, many, sigil string }

func hostWords(k gitops.Kind) words {
	w := gitops.WordsOf(k)
	return words{w.One, w.Many, w.Sigil}
}
