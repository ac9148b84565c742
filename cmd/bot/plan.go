package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

type planOptions struct {
	commonOptions
	Output string
}

func planCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parsePlanFlags("plan", args, stderr)
	if err != nil {
		return parseStatus(err)
	}
	return runPlan(ctx, o, stdout, stderr)
}

// parsePlanFlags reads the flags that plan and apply share.
func parsePlanFlags(name string, args []string, stderr io.Writer) (planOptions, error) {
	var o planOptions
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.bind(fs)
	fs.StringVar(&o.Output, "output", "text", "text, json or markdown")
	return o, fs.Parse(args)
}

func runPlan(ctx context.Context, o planOptions, stdout, stderr io.Writer) int {
	if o.Output != "text" && o.Output != "json" && o.Output != "markdown" {
		fmt.Fprintf(stderr, "imagebot plan: --output: want text, json or markdown, got %q\n", o.Output)
		return exitUsage
	}
	e, err := newEngine(o.commonOptions, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot plan: %v\n", err)
		return exitUsage
	}
	p, _, err := e.plan(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot plan: %v\n", err)
		return exitUsage
	}
	if err := writePlan(stdout, p, o.Output, o.Verbose); err != nil {
		fmt.Fprintf(stderr, "imagebot plan: %v\n", err)
		return exitUsage
	}
	annotate(stderr, p)
	return exitFor(p)
}
