package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/rogpeppe/go-internal/diff"
)

// demoCmd runs imagebot's main job on the embedded default: an in-process
// registry seeded from fixtures/, and the demo repository in a temporary
// directory. It needs no network, no Docker and no account.
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keep := fs.Bool("keep", false, "keep the temporary directory")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	dir, err := os.MkdirTemp("", "imagebot-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "imagebot demo: %v\n", err)
		return exitUsage
	}
	if *keep {
		fmt.Fprintf(stderr, "demo files in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	reg, err := fixtures.Serve(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot demo: registry: %v\n", err)
		return exitUsage
	}
	defer reg.Close()

	repo := filepath.Join(dir, "repo")
	if err := fixtures.WriteDemo(repo); err != nil {
		fmt.Fprintf(stderr, "imagebot demo: %v\n", err)
		return exitUsage
	}
	before, err := snapshot(repo)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot demo: %v\n", err)
		return exitUsage
	}
	common := commonOptions{Repo: repo, Concurrency: 8, Mirrors: reg.Mirrors(), LogLevel: *logLevel, LogFormat: "text"}

	fmt.Fprintf(stdout, "== imagebot demo: registry %s, repository %s\n\n", reg.URL(), repo)
	fmt.Fprintln(stdout, "== imagebot plan")
	if code := runPlan(ctx, planOptions{commonOptions: common, Output: "text"}, stdout, stderr); code != exitOK {
		return code
	}
	fmt.Fprintln(stdout, "\n== imagebot apply (diff of the working tree)")
	if code := runApply(ctx, planOptions{commonOptions: common, Output: "text"}, io.Discard, stderr); code != exitOK {
		return code
	}
	after, err := snapshot(repo)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot demo: %v\n", err)
		return exitUsage
	}
	printDiff(stdout, before, after)
	return demoRun(ctx, dir, common, stdout, stderr)
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
