package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// repoArg accepts the optional DIR of a command that works on a repository:
// the same as --repo DIR, which stays as an alias. Both at once must name the
// same directory, and a second argument is an error rather than something
// silently ignored ("imagebot plan ./repo" once planned ".").
func repoArg(repo *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return nil
		case len(args) > 1:
			return usagef("unexpected argument %q: %s takes one DIR", args[1], cmd.Name())
		case cmd.Flags().Changed("repo") && *repo != args[0]:
			return usagef("DIR %q and --repo %q name two repositories: give one", args[0], *repo)
		}
		*repo = args[0]
		return nil
	}
}

// checkRepoDir fails, before any work, a command whose DIR is no directory.
func checkRepoDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("repository %s: not a readable directory", dir)
	}
	return nil
}

// noArgs refuses every positional argument, naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q: %s takes flags only", args[0], cmd.Name())
	}
	return nil
}
