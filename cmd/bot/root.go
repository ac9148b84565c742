package main

import (
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "imagebot",
		Short: "Keep a repository's container images and Helm charts on their newest versions",
		Long: `imagebot keeps the container images referenced in a git repository (Kubernetes
manifests, kustomizations, Helm values, compose files) on the newest immutable
tags its policies allow, and its Helm chart versions (Flux HelmRelease and
OCIRepository, Argo CD applications, Chart.yaml dependencies, kustomize
helmCharts) on the newest versions of their HTTP or OCI repositories. It
proposes each change as its own pull request (GitHub, GitLab, Gitea, Forgejo,
Bitbucket Cloud and Data Center, Azure DevOps).

DIR is the repository to work on (default: the current directory).`,
		Example: `  imagebot init                 # write .imagebot.yaml and a workflow
  imagebot plan                 # the updates, changing nothing
  imagebot apply ./gitops       # rewrite the files of ./gitops
  imagebot run                  # one pull request per update (GITHUB_TOKEN)
  imagebot help plan            # a command's flags and examples`,
		Version: versionString(),
		// Errors are printed once, by execute, with the command's name.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("imagebot {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(newHelpCmd())
	root.AddCommand(
		newPlanCmd(f, nil),
		newApplyCmd(f, nil),
		newDriftCmd(f, nil),
		newRunCmd(f, nil),
		newRollbackCmd(f, nil),
		newPrepullHelperCmd(f),
		newServeCmd(f, nil),
		newValidateCmd(f, nil),
		newInitCmd(f, nil),
		newVersionCmd(f),
	)
	return root
}

// newHelpCmd is `imagebot help [command]`, which unlike cobra's own fails
// on a command that does not exist.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints a command's description, flags and examples, as 'imagebot COMMAND --help' does.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usagef("no command %q: 'imagebot help' lists them", strings.Join(args, " "))
			}
			// Listed among the flags, as with --help.
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}
