package main

import (
	"context"
	"fmt"
	"io"
)

func serveCmd(_ context.Context, _ []string, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "bot serve: not yet available")
	return exitUsage
}
