package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/imagebot/imagebot/internal/config"
)

func validateCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "repository `dir` holding .imagebot.yaml")
	file := fs.String("config", "", "config `file` to check (default: .imagebot.yaml in the repository)")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	cfg, err := loadConfig(*repo, *file)
	if err != nil {
		var errs *config.Errors
		if errors.As(err, &errs) {
			for _, e := range *errs {
				fmt.Fprintln(stderr, e.Error())
			}
			fmt.Fprintf(stderr, "%d %s\n", len(*errs), plural(len(*errs), "error", "errors"))
			return exitUsage
		}
		fmt.Fprintf(stderr, "imagebot validate: %v\n", err)
		return exitUsage
	}
	if cfg.File == "" {
		fmt.Fprintln(stdout, "no .imagebot.yaml: defaults apply")
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: ok (%d policies)\n", cfg.File, len(cfg.Policies))
	return exitOK
}
