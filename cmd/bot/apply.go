package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/job"
)

func newApplyCmd(f *factory, runF func(context.Context, *planOptions) error) *cobra.Command {
	o := newPlanOptions(f)
	cmd := &cobra.Command{
		Use:   "apply [DIR]",
		Short: "Plan, then rewrite the working tree (files only, no git)",
		Long: `Apply makes the plan for the repository in DIR (default: the current
directory), then writes each update into its files. Only the bytes of tags and
digests change: comments, quotes, indentation, line ends and everything else
stay as they were. It neither commits nor pushes: review the change with
'git diff'.

It prints the plan it applied, in --output's format, and exits as plan does.`,
		Example: `  # Update the files of the repository in the current directory
  imagebot apply && git diff

  # Another repository
  imagebot apply ./gitops`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return orDefault(runF, runApply)(cmd.Context(), o)
		},
	}
	o.bind(cmd)
	return cmd
}

func runApply(ctx context.Context, o *planOptions) error {
	rep, err := job.Apply(ctx, o.job())
	if rep == nil {
		return err
	}
	if werr := o.report(rep); werr != nil {
		return werr
	}
	o.logger().Info("applied", "files", len(rep.Changed), "updates", len(rep.Plan.Updates))
	return err
}
