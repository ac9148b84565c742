package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/release"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	out := fs.String("out", "bin/image", "OCI layout directory to (re)write")
	platforms := fs.String("platforms", "linux/amd64,linux/arm64", "comma-separated OS/ARCH list")
	o := release.Options{Dir: ".", Main: "./cmd/bot"}
	fs.StringVar(&o.Version, "version", "", "version stamped into the binary and the labels (required)")
	fs.StringVar(&o.Revision, "revision", "", "commit the image is built from")
	fs.StringVar(&o.Source, "source", "https://github.com/imagebot/imagebot", "repository URL for the labels")
	created := fs.String("created", os.Getenv("SOURCE_DATE_EPOCH"), "commit time in Unix seconds (default $SOURCE_DATE_EPOCH)")
	ref := fs.String("ref", "", "name of the index in the layout (default the version)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.Platforms, err = release.ParsePlatforms(*platforms); err != nil {
		return err
	}
	if *created != "" {
		secs, err := strconv.ParseInt(strings.TrimSpace(*created), 10, 64)
		if err != nil {
			return fmt.Errorf("-created %q: want Unix seconds, e.g. $(git log -1 --format=%%ct)", *created)
		}
		o.Created = time.Unix(secs, 0)
	}
	if *ref == "" {
		*ref = o.Version
	}

	idx, err := release.Build(ctx, o)
	if err != nil {
		return err
	}
	if err := release.WriteLayout(*out, idx, *ref); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s (%s)\n", *out, d, *platforms)
	return nil
}
