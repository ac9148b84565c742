package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/plan"
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
references, looks up each image's tags in its registry, and prints the updates
the policies in .imagebot.yaml allow. It writes nothing.

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
	e, p, err := o.plan(ctx)
	if err != nil {
		return err
	}
	if err := o.report(e, p); err != nil {
		return err
	}
	return planStatus(p)
}

// plan plans the working tree of o.Repo: what plan prints and apply writes.
func (o *planOptions) plan(ctx context.Context) (*engine, *plan.Plan, error) {
	e, err := newEngine(o.commonOptions)
	if err != nil {
		return nil, nil, err
	}
	p, _, err := e.plan(ctx)
	if err != nil {
		return nil, nil, err
	}
	return e, p, nil
}

// report keeps what the lookups learnt (--cache), prints p in --output's
// format with what it cost, logs the cost and annotates the problems for
// GitHub Actions.
func (o *planOptions) report(e *engine, p *plan.Plan) error {
	e.flush()
	cost := e.reg.Stats()
	if err := writePlanCost(o.IO.Out, p, o.Output.value, o.Verbose, cost); err != nil {
		return err
	}
	e.report(o.Env, p, cost)
	return nil
}

// orDefault is the run function a test passed, else the command's own.
func orDefault[O any](runF, def func(context.Context, O) error) func(context.Context, O) error {
	if runF != nil {
		return runF
	}
	return def
}

// digestConfirmer is the registry client's Confirm (internal/registry).
type digestConfirmer interface {
	Confirm(ctx context.Context, ref name.Tag, digest string) error
}

// confirmDigests checks each digest the plan would write that the
// registry client answered from --cache against the registry (one HEAD
// per such digest; none without a cache): a cache is a hint, and a
// listing edited on disk must not make apply or run pin a digest the
// registry never served for the tag. An update whose digest is not
// confirmed is not proposed; it becomes a failed lookup (exit 2), and the
// next run, with the registry's digest cached, proposes it.
func confirmDigests(ctx context.Context, reg digestConfirmer, p *plan.Plan) {
	kept := p.Updates[:0]
	for _, u := range p.Updates {
		if err := confirmUpdate(ctx, reg, u); err != nil {
			at := u.Locations[0]
			p.Problems = append(p.Problems, plan.Problem{File: at.File, Line: at.Line, Failed: true, Image: u.Image,
				Message: fmt.Sprintf("%s %s -> %s not proposed: %v", u.Image, u.From, u.To, err)})
			continue
		}
		kept = append(kept, u)
	}
	p.Updates = kept
	p.Sort()
}

// confirmUpdate confirms every digest u writes, each once.
func confirmUpdate(ctx context.Context, reg digestConfirmer, u plan.Update) error {
	done := map[string]bool{}
	for _, c := range u.Changes {
		if c.Digest == "" {
			continue
		}
		tag := cmp.Or(c.Tag, c.Ref.Tag, u.To)
		if tag == "" || done[tag+"@"+c.Digest] {
			continue
		}
		done[tag+"@"+c.Digest] = true
		if err := reg.Confirm(ctx, u.Repo.Tag(tag), c.Digest); err != nil {
			return err
		}
	}
	return nil
}
