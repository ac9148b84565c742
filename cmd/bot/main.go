package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Main runs one command line with the process's environment and returns
// its exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, args, &factory{IO: iostreams{Out: stdout, ErrOut: stderr}, Env: osEnviron()})
}

// execute runs one command line and returns its exit status: the one place
// where errors become statuses and are printed.
func execute(ctx context.Context, args []string, f *factory) int {
	root := newRootCmd(f)
	if len(args) == 0 {
		// imagebot alone did nothing it was asked: the usage, on stderr.
		fmt.Fprint(f.IO.ErrOut, root.UsageString())
		return exitUsage
	}
	// A nil slice would make cobra read os.Args.
	root.SetArgs(append([]string{}, args...))
	cmd, err := root.ExecuteContextC(ctx)
	path := "imagebot"
	if cmd != nil && cmd != root {
		path = cmd.CommandPath()
	} else if err != nil {
		// The root runs nothing: whatever failed there (an unknown
		// command) is a usage error.
		err = &usageError{err}
	}
	printErrorFor(f.IO.ErrOut, path, err, f.Env.Actions)
	return exitCode(err)
}
