package main

import (
	"context"
	"fmt"
	"io"

	"github.com/imagebot/imagebot/internal/registry"
)

// runOptions are the flags of `run` (and of each scheduled run of `serve`).
type runOptions struct {
	commonOptions
	DryRun bool
}

// runSummary is what one run did, for serve's metrics and readiness.
type runSummary struct {
	Updates  int // updates in the plan
	Opened   int // pull requests opened
	Updated  int // pull requests updated (new version, rebased, retitled)
	Closed   int // pull requests closed (obsolete)
	Failed   int // lookups and pull requests that failed
	Problems int // problems in the repository's files
	Registry []registry.HostStats
}

// runJob plans and opens pull requests once; serve calls it on schedule.
// It returns the exit status `run` would have.
func runJob(ctx context.Context, o runOptions, stdout, stderr io.Writer) (runSummary, int) {
	fmt.Fprintln(stderr, "bot run: not yet available")
	return runSummary{}, exitUsage
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	_, code := runJob(ctx, runOptions{}, stdout, stderr)
	return code
}

func serveCmd(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "bot serve: not yet available")
	return exitUsage
}

func demoRun(_ context.Context, _ string, _ any, _ commonOptions, _, _ io.Writer) int { return exitOK }
