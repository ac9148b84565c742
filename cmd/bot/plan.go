package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/job"
)

// planOptions are the flags of `plan` and `apply`.
type planOptions struct {
	commonOptions
	Output *choice
}

func newPlanOptions(f *factory) *planOptions {
	return &planOptions{commonOptions: newCommonOptions(f), Output: newChoice("text", "text", "json", "markdown")}
}

func (o *planOptions) bind(cmd *cobra.Command) {
	o.commonOptions.bind(cmd.Flags())
	cmd.Flags().VarP(o.Output, "output", "o", "output `FORMAT`: text, json or markdown")
}

func newPlanCmd(f *factory, runF func(context.Context, *planOptions) error) *cobra.Command {
	o := newPlanOptions(f)
	cmd := &cobra.Command{
		Use:   "plan [DIR]",
		Short: "Scan, look up and decide: print the updates (writes nothing)",
		Long: `Plan scans the repository in DIR (default: the current directory) for image
references and Helm chart versions, looks up each image's tags in its registry
and each chart's versions in its repository, and prints the updates the
policies in .imagebot.yaml allow. It writes nothing.

A malformed manifest is a warning, named with file:line. The exit status is 0
when everything was looked up, 2 when some lookups failed (the rest are still
printed), and 1 for a bad config or flag.`,
		Example: `  # The updates for the repository in the current directory
  imagebot plan

  # Another repository, as JSON
  imagebot plan ./gitops --output json

  # Through a pull-through cache for Docker Hub, listing every reference left alone
  imagebot plan --mirror docker.io=https://mirror.example.com --verbose`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return orDefault(runF, runPlan)(cmd.Context(), o)
		},
	}
	o.bind(cmd)
	return cmd
}

func runPlan(ctx context.Context, o *planOptions) error {
	rep, err := job.Plan(ctx, o.job())
	if rep == nil {
		return err
	}
	if werr := o.report(rep); werr != nil {
		return werr
	}
	return err
}

// report prints the plan in --output's format with what it cost, and
// annotates its problems for GitHub Actions.
func (o *planOptions) report(rep *job.Report) error {
	if err := writePlanCost(o.IO.Out, rep.Plan, o.Output.value, o.Verbose, runCost{rep.Cost, rep.ChartCost}); err != nil {
		return err
	}
	annotate(o.IO.ErrOut, o.Env, rep.Plan, runCost{rep.Cost, rep.ChartCost})
	return nil
}

// orDefault is the run function a test passed, else the command's own.
func orDefault[O any](runF, def func(context.Context, O) error) func(context.Context, O) error {
	if runF != nil {
		return runF
	}
	return def
}
