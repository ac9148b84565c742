package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// initOptions are the flags of `imagebot init [DIR]`.
type initOptions struct {
	IO             iostreams
	Repo           string
	From           *choice // "", "flux" or "renovate"
	Force          bool
	Stdout         bool
	RewriteMarkers bool
	ActionRef      string
	Concurrency    count
	Mirrors        mirrorFlag
	// Forge is what the environment says of the git host: on Gitea or
	// Forgejo (their Actions, GITEA_TOKEN, origin's host), their workflow;
	// in GitLab CI (or origin on GitLab), its job; on Azure DevOps, a
	// pipeline; on Bitbucket Cloud, Pipelines'. ForgeKind is --forge,
	// which says it before all that (a Bitbucket Data Center's origin
	// does not).
	Forge     job.ForgeEnv
	ForgeKind *choice
}

func newInitCmd(f *factory, runF func(context.Context, *initOptions) error) *cobra.Command {
	o := &initOptions{IO: f.IO, Forge: f.Env.Forge, Repo: ".", From: newChoice("", "flux", "renovate"), Concurrency: count{min: 1},
		ForgeKind: newCommonOptions(f).Forge}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a commented .imagebot.yaml and a workflow for a repository",
		Long: `Init looks at the repository in DIR (default: the current directory) and
writes a commented .imagebot.yaml for it (the registries it found, a policy
suggested for each tag scheme that needs one) and the GitHub Actions workflow
.github/workflows/imagebot.yml; for a repository on Gitea or Forgejo (origin
on codeberg.org, gitea.com, gitea.* or forgejo.*, their Actions, or
GITEA_TOKEN set), their Actions workflow .gitea/workflows/imagebot.yml or
.forgejo/workflows/imagebot.yml instead; on GitLab (origin on a GitLab host,
or in GitLab CI) a scheduled job, as .gitlab-ci.yml, or as
.gitlab/imagebot.gitlab-ci.yml to include when .gitlab-ci.yml exists; on
Azure DevOps (origin on Azure Repos, or in Azure Pipelines) a scheduled
pipeline, .azure-pipelines/imagebot.yml, to create a pipeline from; on
Bitbucket Cloud (origin on bitbucket.org, or in Bitbucket Pipelines) a
custom pipeline to schedule, bitbucket-pipelines.yml, or, when that file
exists, the pipeline to add to it, printed (init never replaces it, not
even with --force); on Bitbucket Data Center (--forge bitbucket-server,
or BITBUCKET_SERVER_TOKEN set), which has no CI, no CI file. It never
replaces existing files without --force.

--from flux converts the repository's Flux ImagePolicy and ImageRepository
objects and $imagepolicy markers; --from renovate converts renovate.json's
docker rules. Each says what it could not convert.`,
		Example: `  # A config for the repository in the current directory
  imagebot init

  # Print what it would write for another one
  imagebot init ./gitops --stdout

  # Switch from Flux image automation, marking Flux markers imagebot cannot find alone
  imagebot init --from flux --rewrite-markers`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.RewriteMarkers && o.From.value != "flux" {
				return usagef("--rewrite-markers goes with --from flux")
			}
			return orDefault(runF, runInit)(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Repo, "repo", ".", "the repository `DIR` to write .imagebot.yaml into, as the DIR argument")
	fs.Var(o.From, "from", "convert the config of `TOOL`: flux or renovate")
	fs.BoolVarP(&o.Force, "force", "f", false, "replace an existing .imagebot.yaml and workflow")
	fs.BoolVar(&o.Stdout, "stdout", false, "print the files instead of writing them")
	fs.BoolVarP(&o.Stdout, "dry-run", "n", false, "the same as --stdout")
	fs.BoolVar(&o.RewriteMarkers, "rewrite-markers", false, "with --from flux: add imagebot's marker to Flux markers on lines imagebot does not find by itself")
	fs.StringVar(&o.ActionRef, "action-ref", "v1", "`REF` of the imagebot/imagebot Action in the workflow")
	fs.Var(&o.Concurrency, "concurrency", "at most `N` registry requests in flight per host (default 8, 4 for quay.io)")
	fs.Var(&o.Mirrors, "mirror", "fetch from mirror `HOST=URL` instead of registry HOST; repeatable")
	fs.Var(o.ForgeKind, "forge", "the git host `KIND` whose CI file to write: github, gitlab, gitea (Forgejo too), bitbucket (Cloud), bitbucket-server (Data Center) or azure; default: from the CI environment, the token variables and origin's URL")
	return cmd
}

func runInit(ctx context.Context, o *initOptions) error {
	stdout, stderr := o.IO.Out, o.IO.ErrOut
	if err := checkRepoDir(o.Repo); err != nil {
		return err
	}
	if !o.Stdout && !o.Force {
		if err := adopt.Unwritten(o.Repo); err != nil {
			return err
		}
	}
	res, err := job.Init(ctx, job.InitOptions{Repo: o.Repo, From: o.From.value, Mirrors: o.Mirrors,
		Concurrency: o.Concurrency.n, ActionRef: o.ActionRef, Forge: job.Forge{Kind: gitops.Kind(o.ForgeKind.value), Env: o.Forge}, Release: version})
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if res.Handover != "" {
		// What to turn off in the tool converted from: the two must
		// never propose the same update.
		fmt.Fprintf(stderr, "then, in %s: %s\n", res.From, res.Handover)
	}
	if o.Stdout {
		files := res.Files(o.Repo)
		for _, name := range []string{".imagebot.yaml", ".imagebot.yml", cmp.Or(res.WorkflowPath, adopt.WorkflowPath)} {
			if data, ok := files[name]; ok {
				fmt.Fprintf(stdout, "# ==> %s <==\n%s", name, data)
			}
		}
		if res.Snippet != nil {
			fmt.Fprintf(stdout, "# ==> add to %s <==\n%s", adopt.BitbucketPipelinesPath, res.Snippet)
		}
		for _, m := range res.Markers {
			fmt.Fprintln(stderr, m)
		}
		return nil
	}
	written, err := res.Write(o.Repo, o.Force)
	if err != nil {
		return err
	}
	for _, w := range written {
		fmt.Fprintf(stdout, "wrote %s\n", w)
	}
	if res.Snippet != nil {
		// The file exists and holds the repository's own pipelines: the
		// note said so; this is what to add to it.
		fmt.Fprintf(stdout, "add to %s (left alone):\n%s", adopt.BitbucketPipelinesPath, res.Snippet)
	}
	if o.RewriteMarkers {
		changed, err := adopt.RewriteMarkers(o.Repo, res.Markers)
		for _, c := range changed {
			fmt.Fprintf(stdout, "added imagebot markers to %s\n", c)
		}
		if err != nil {
			return err
		}
	} else {
		for _, m := range res.Markers {
			fmt.Fprintln(stderr, m)
		}
	}
	fmt.Fprintln(stdout, "next: imagebot validate, then imagebot plan to see the updates it would propose")
	return nil
}
