package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"
)

// demoOptions are the flags of `demo`.
type demoOptions struct {
	IO       iostreams
	Keep     bool
	LogLevel *choice
}

func newDemoCmd(f *factory) *cobra.Command {
	o := &demoOptions{IO: f.IO, LogLevel: newChoice("warn", "debug", "info", "warn", "error")}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole job against an embedded registry, git remote and GitHub",
		Long: `Demo runs imagebot's main job on an example: an in-process registry seeded
with real images, the demo repository in a temporary directory, a git remote
and a fake GitHub. It shows plan, the diff apply writes, the pull requests
run opens, and that a rerun with nothing new writes nothing. It needs no
network, no Docker and no account.`,
		Example: `  imagebot demo
  imagebot demo --keep   # keep the temporary directory to look around`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), o) },
	}
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "keep the temporary directory")
	cmd.Flags().Var(o.LogLevel, "log-level", "log `LEVEL`: debug, info, warn or error")
	return cmd
}

// runDemo runs imagebot's main job on the embedded default: an in-process
// registry seeded from fixtures/, and the demo repository in a temporary
// directory.
func runDemo(ctx context.Context, o *demoOptions) error {
	stdout, stderr := o.IO.Out, o.IO.ErrOut
	dir, err := os.MkdirTemp("", "imagebot-demo-")
	if err != nil {
		return err
	}
	if o.Keep {
		fmt.Fprintf(stderr, "demo files in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	reg, err := fixtures.Serve(ctx)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	defer reg.Close()

	repo := filepath.Join(dir, "repo")
	if err := fixtures.WriteDemo(repo); err != nil {
		return err
	}
	before, err := snapshot(repo)
	if err != nil {
		return err
	}
	common := commonOptions{IO: o.IO, Repo: repo, Concurrency: count{min: 1}, Mirrors: reg.Mirrors(),
		LogLevel: o.LogLevel, LogFormat: newChoice("text", "text")}

	fmt.Fprintf(stdout, "== imagebot demo: registry %s, repository %s\n\n", reg.URL(), repo)
	fmt.Fprintln(stdout, "== imagebot plan")
	if err := runPlan(ctx, &planOptions{commonOptions: common, Output: newChoice("text", "text")}); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\n== imagebot apply (diff of the working tree)")
	quiet := common
	quiet.IO.Out = io.Discard
	if err := runApply(ctx, &planOptions{commonOptions: quiet, Output: newChoice("text", "text")}); err != nil {
		return err
	}
	after, err := snapshot(repo)
	if err != nil {
		return err
	}
	printDiff(stdout, before, after)
	return demoRun(ctx, dir, common)
}

// snapshot reads every file below dir.
func snapshot(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	return files, err
}

func printDiff(w io.Writer, before, after map[string][]byte) {
	var names []string
	for n := range after {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if string(before[n]) != string(after[n]) {
			w.Write(diff.Diff("a/"+n, before[n], "b/"+n, after[n]))
		}
	}
}
