package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/job"
	"github.com/spf13/cobra"
)

// validateOptions are the flags and argument of `validate`.
type validateOptions struct {
	IO     iostreams
	Repo   string
	Config string
	// File is a config file given as the argument, read as given.
	File string
}

func newValidateCmd(f *factory, runF func(context.Context, *validateOptions) error) *cobra.Command {
	o := &validateOptions{IO: f.IO, Repo: "."}
	cmd := &cobra.Command{
		Use:   "validate [DIR | FILE]",
		Short: "Check the config file",
		Long: `Validate checks the config of the repository in DIR (default: the current
directory): .imagebot.yaml, or --config FILE. Given a FILE instead of a DIR,
it checks that file. Every problem is listed with file:line:col and what to
write instead, and the exit status is 1 if there is any.

It checks policies with the code that plan runs them with: what validate
accepts, plan accepts.`,
		Example: `  # The repository in the current directory
  imagebot validate

  # A file about to be committed
  imagebot validate ci/imagebot.yaml

  # Another repository, with the config file its workflow uses
  imagebot validate ./gitops --config ci/imagebot.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return o.argument(cmd, args[0])
			}
			return repoArg(&o.Repo)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return orDefault(runF, runValidate)(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", ".", "the repository `DIR`, as the DIR argument")
	cmd.Flags().StringVarP(&o.Config, "config", "c", "", "the config `FILE` to check: a path in the repository, or an absolute path (default .imagebot.yaml)")
	return cmd
}

// argument is DIR when it is a directory, else a config FILE; a path that
// does not exist is an error, not "defaults apply".
func (o *validateOptions) argument(cmd *cobra.Command, arg string) error {
	st, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory (give the repository's directory or a config file)", arg)
	case err != nil:
		return err
	case st.IsDir():
		return repoArg(&o.Repo)(cmd, []string{arg})
	case cmd.Flags().Changed("config") || cmd.Flags().Changed("repo"):
		return usagef("FILE %q with --config or --repo: give the file alone, or DIR with --config", arg)
	}
	o.File = arg
	return nil
}

func runValidate(_ context.Context, o *validateOptions) error {
	var cfg *config.Config
	var err error
	if o.File != "" {
		cfg, err = config.Load(o.File)
	} else {
		cfg, err = job.LoadConfig(o.Repo, o.Config)
	}
	var errs *config.Errors
	if errors.As(err, &errs) {
		for _, e := range *errs {
			fmt.Fprintln(o.IO.ErrOut, e.Error())
		}
		fmt.Fprintf(o.IO.ErrOut, "%d %s\n", len(*errs), plural(len(*errs), "error", "errors"))
		return errSilent
	}
	if err != nil {
		return err
	}
	if cfg.File == "" {
		fmt.Fprintln(o.IO.Out, "no .imagebot.yaml: defaults apply")
		return nil
	}
	fmt.Fprintf(o.IO.Out, "%s: ok (%d policies)\n", cfg.File, len(cfg.Policies))
	return nil
}
