// Command demo runs imagebot's main job end to end on an embedded default:
// an in-process registry seeded from fixtures/, the demo repository in a
// temporary directory, a git remote over smart HTTP and a stateful fake
// GitHub. It drives the imagebot binary as a user would (plan, apply, run,
// and run again), so that the release binary carries none of these test
// doubles. It needs no network, no Docker and no account.
//
//	go build -o bin/imagebot ./cmd/bot && go run ./cmd/demo -imagebot bin/imagebot
//
// (what `make demo` does).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

func main() {
	var o options
	flag.StringVar(&o.bin, "imagebot", "bin/imagebot", "the imagebot `binary` to run")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory to look around")
	flag.StringVar(&o.logLevel, "log-level", "warn", "imagebot's log `level`: debug, info, warn or error")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demo: unexpected argument %q: demo takes flags only\n", flag.Arg(0))
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	bin      string
	keep     bool
	logLevel string
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no imagebot binary at %s: build it first (make build), or name it with -imagebot", o.bin)
	}
	dir, err := os.MkdirTemp("", "imagebot-demo-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintf(stderr, "demo files in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	d := &demo{bin: bin, dir: dir, logLevel: o.logLevel, stdout: stdout, stderr: stderr}
	return d.run(ctx)
}
