package main

import (
	"context"
	"fmt"
	"io"
)

func runCmd(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "bot run: not yet available")
	return exitUsage
}

func serveCmd(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "bot serve: not yet available")
	return exitUsage
}

func demoRun(_ context.Context, _ string, _ any, _ commonOptions, _, _ io.Writer) int { return exitOK }
