package main

import (
	"context"
	"fmt"
	"io"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
)

func applyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parsePlanFlags("apply", args, stderr)
	if err != nil {
		return parseStatus(err)
	}
	return runApply(ctx, o, stdout, stderr)
}

func runApply(ctx context.Context, o planOptions, stdout, stderr io.Writer) int {
	e, err := newEngine(o.commonOptions, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot apply: %v\n", err)
		return exitUsage
	}
	p, _, err := e.plan(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot apply: %v\n", err)
		return exitUsage
	}
	var changes []plan.Change
	for _, u := range p.Updates {
		changes = append(changes, u.Changes...)
	}
	res, err := rewrite.Files(o.Repo, changes)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot apply: %v\n", err)
		return exitUsage
	}
	p.Problems = append(p.Problems, res.Problems...)
	if err := writePlan(stdout, p, o.Output, o.Verbose); err != nil {
		fmt.Fprintf(stderr, "imagebot apply: %v\n", err)
		return exitUsage
	}
	annotate(stderr, p)
	e.log.Info("applied", "files", len(res.Changed), "updates", len(p.Updates))
	return exitFor(p)
}
