package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/job"
)

// rollbackOptions are the flags and arguments of `rollback IMAGE [DIR]`.
type rollbackOptions struct {
	commonOptions
	Image  string
	To     string
	DryRun bool
}

func newRollbackCmd(f *factory, runF func(context.Context, *rollbackOptions) error) *cobra.Command {
	o := &rollbackOptions{commonOptions: newCommonOptions(f)}
	cmd := &cobra.Command{
		Use:   "rollback IMAGE [DIR]",
		Short: "One pull request moving an image (or chart) back to an earlier tag",
		Long: `Rollback opens one pull request that moves every reference of IMAGE back to
TAG (--to), or, without --to, to the tag the references had before the
commit that brought the current one on the default branch. The update type
is rollback. Once the pull request is merged, the version rolled back from
counts as declined: run does not propose it again, and proposes a newer one
as usual.

IMAGE may name a chart as plan prints it: oci://HOST/PATH/CHART or
https://REPOSITORY/CHART, with --to a version.

It needs what run needs: GITHUB_TOKEN (or a GitHub App), and DIR a clone of
the repository. --dry-run prints the pull request instead.`,
		Example: `  # Back to the tag before the current one
  GITHUB_TOKEN=ghp_... imagebot rollback nginx

  # Back to a tag of your choosing, previewed first
  imagebot rollback ghcr.io/acme/api --to v1.8.2 --dry-run ./gitops

  # A chart, back to the version before the current one
  imagebot rollback oci://ghcr.io/stefanprodan/charts/podinfo`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("rollback needs the IMAGE to roll back, such as nginx or ghcr.io/acme/api")
			}
			o.Image = args[0]
			return repoArg(&o.Repo)(cmd, args[1:])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runRollback(cmd.Context(), o)
		},
	}
	o.bind(cmd.Flags())
	o.bindForge(cmd.Flags())
	cmd.Flags().StringVar(&o.To, "to", "", "the `TAG` to go back to (default: the tag before the current one on the default branch)")
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "print the pull request it would open; write nothing")
	return cmd
}

// runRollback opens one pull request moving every reference of the image
// back: to --to, or to the tag it had before the current one.
func runRollback(ctx context.Context, o *rollbackOptions) error {
	image, err := rollbackImage(o.Image)
	if err != nil {
		return &usageError{err}
	}
	jo, err := o.hostJob(o.DryRun)
	if err != nil {
		return err
	}
	// Without the host's token, err is the host's own message for
	// rollback (job.Access.NoToken), and there is no plan.
	rep, err := job.Rollback(ctx, job.RollbackOptions{Options: jo, Image: image, To: o.To})
	// What the rollback did ends its output as run's does; a rollback
	// that failed has no plan to show, as a failed run shows none.
	switch {
	case rep.Plan == nil:
	case rep.Result == nil:
		fmt.Fprintf(o.IO.Out, "%s is at %s already: nothing to roll back\n", image, o.To)
	default:
		printRun(o.IO.Out, rep.Plan, rep.Result, o.DryRun, o.Verbose, hostWords(rep.Forge))
	}
	if rep.Plan != nil {
		annotate(o.IO.ErrOut, o.Env, rep.Plan, runCost{rep.Cost, rep.ChartCost})
	}
	return err
}

// rollbackImage normalizes IMAGE, which names a repository, not a tag,
// or a chart as policies match it (oci://HOST/PATH/CHART,
// https://REPO/CHART).
func rollbackImage(arg string) (string, error) {
	if strings.ContainsAny(arg, "@") || strings.Contains(arg[strings.LastIndex(arg, "/")+1:], ":") {
		return "", fmt.Errorf("IMAGE %q names a tag or digest: name the image alone, and the tag with --to", arg)
	}
	if scheme, rest, ok := strings.Cut(arg, "://"); ok {
		return rollbackChart(arg, scheme, rest)
	}
	img, err := imagename.Normalize(arg)
	if err != nil {
		return "", fmt.Errorf("IMAGE %q: %w", arg, err)
	}
	return img, nil
}

// rollbackChart checks a chart's name: a repository URL and the chart's
// name after its last slash, as plan prints it.
func rollbackChart(arg, scheme, rest string) (string, error) {
	switch {
	case scheme != "oci" && scheme != "https" && scheme != "http":
		return "", fmt.Errorf("chart %q: write oci://HOST/PATH/CHART or https://REPOSITORY/CHART", arg)
	case !strings.Contains(strings.Trim(rest, "/"), "/"):
		return "", fmt.Errorf("chart %q names no chart: write the repository URL, then /CHART", arg)
	}
	return strings.TrimRight(arg, "/"), nil
}
