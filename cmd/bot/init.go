package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/registry"
)

// initOptions are the flags of `imagebot init [DIR]`.
type initOptions struct {
	Repo           string
	From           string // "", "flux" or "renovate"
	Force          bool
	Stdout         bool
	RewriteMarkers bool
	ActionRef      string
	Concurrency    int
	Mirrors        mirrorFlag
}

func initCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o initOptions
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Repo, "repo", ".", "repository `dir` to write .imagebot.yaml into (or DIR)")
	fs.StringVar(&o.From, "from", "", "convert another tool's config: flux or renovate")
	fs.BoolVar(&o.Force, "force", false, "replace an existing .imagebot.yaml and workflow")
	fs.BoolVar(&o.Stdout, "stdout", false, "print the files instead of writing them")
	fs.BoolVar(&o.Stdout, "dry-run", false, "the same as --stdout")
	fs.BoolVar(&o.RewriteMarkers, "rewrite-markers", false, "with --from flux: add imagebot's marker to Flux markers on lines imagebot does not find by itself")
	fs.StringVar(&o.ActionRef, "action-ref", "v1", "`ref` of the imagebot/imagebot Action in the workflow")
	fs.IntVar(&o.Concurrency, "concurrency", 8, "registry lookups at once")
	fs.Var(&o.Mirrors, "mirror", "`host=url` mirror for a registry (repeatable), as for plan")
	// DIR may come before or after the flags.
	var dirs []string
	for {
		if err := fs.Parse(args); err != nil {
			return parseStatus(err)
		}
		if fs.NArg() == 0 {
			break
		}
		dirs, args = append(dirs, fs.Arg(0)), fs.Args()[1:]
	}
	switch {
	case len(dirs) > 1:
		fmt.Fprintf(stderr, "imagebot init: want one DIR, got %q\n", dirs)
		return exitUsage
	case len(dirs) == 1:
		o.Repo = dirs[0]
	}
	return runInit(ctx, o, stdout, stderr)
}

func runInit(ctx context.Context, o initOptions, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "imagebot init: %v\n", err)
		return exitUsage
	}
	if o.Concurrency < 1 {
		return fail(fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency))
	}
	if o.RewriteMarkers && o.From != "flux" {
		return fail(fmt.Errorf("--rewrite-markers goes with --from flux"))
	}
	if st, err := os.Stat(o.Repo); err != nil || !st.IsDir() {
		return fail(fmt.Errorf("repository %s: not a readable directory", o.Repo))
	}
	opts := adopt.Options{Concurrency: o.Concurrency, ActionRef: o.ActionRef}
	fsys := os.DirFS(o.Repo)
	var res *adopt.Result
	var err error
	switch o.From {
	case "":
		opts.Registry = registry.NewClient(
			registry.WithMirrors(o.Mirrors),
			registry.WithConcurrency(o.Concurrency),
			registry.WithLogger(slog.New(slog.DiscardHandler)),
		)
		res, err = adopt.Init(ctx, fsys, opts)
	case "flux":
		res, err = adopt.FromFlux(ctx, fsys, opts)
	case "renovate":
		res, err = adopt.FromRenovate(ctx, fsys, opts)
	default:
		return fail(fmt.Errorf("--from: want flux or renovate, got %q", o.From))
	}
	if err != nil {
		return fail(err)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if o.Stdout {
		files, _ := res.Files(o.Repo)
		for _, name := range []string{".imagebot.yaml", ".imagebot.yml", adopt.WorkflowPath} {
			if data, ok := files[name]; ok {
				fmt.Fprintf(stdout, "# ==> %s <==\n%s", name, data)
			}
		}
		for _, m := range res.Markers {
			fmt.Fprintln(stderr, m)
		}
		return exitOK
	}
	written, err := res.Write(o.Repo, o.Force)
	if err != nil {
		return fail(err)
	}
	for _, w := range written {
		fmt.Fprintf(stdout, "wrote %s\n", w)
	}
	if o.RewriteMarkers {
		changed, err := adopt.RewriteMarkers(o.Repo, res.Markers)
		for _, c := range changed {
			fmt.Fprintf(stdout, "added imagebot markers to %s\n", c)
		}
		if err != nil {
			return fail(err)
		}
	} else {
		for _, m := range res.Markers {
			fmt.Fprintln(stderr, m)
		}
	}
	fmt.Fprintln(stdout, "next: imagebot validate, then imagebot plan to see the updates it would propose")
	return exitOK
}
