package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/imagebot/imagebot/fixtures"
)

// demo is one run of the demo: the imagebot binary, the directory that
// holds the demo's repositories, and where to show what happens.
type demo struct {
	bin      string
	dir      string
	logLevel string
	mirrors  []string // --mirror flags for the seeded registry
	stdout   io.Writer
	stderr   io.Writer
}

// run shows plan, the diff apply writes, and the pull requests run opens.
func (d *demo) run(ctx context.Context) error {
	reg, err := fixtures.Serve(ctx)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	defer reg.Close()
	mirrors := reg.Mirrors()
	for _, h := range slices.Sorted(maps.Keys(mirrors)) {
		d.mirrors = append(d.mirrors, "--mirror", h+"="+mirrors[h])
	}

	repo := filepath.Join(d.dir, "repo")
	if err := fixtures.WriteDemo(repo); err != nil {
		return err
	}
	before, err := snapshot(repo)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "== imagebot demo: registry %s, repository %s\n\n", reg.URL(), repo)
	fmt.Fprintln(d.stdout, "== imagebot plan")
	if err := d.imagebot(ctx, nil, d.stdout, "plan", repo); err != nil {
		return err
	}
	fmt.Fprintln(d.stdout, "\n== imagebot apply (diff of the working tree)")
	if err := d.imagebot(ctx, nil, io.Discard, "apply", repo); err != nil {
		return err
	}
	after, err := snapshot(repo)
	if err != nil {
		return err
	}
	printDiff(d.stdout, before, after)
	return d.pullRequests(ctx)
}

// imagebot runs the binary with the demo's flags and env (added to a
// process environment without the caller's GitHub and imagebot settings,
// so that a demo run inside GitHub Actions shows what it shows anywhere).
func (d *demo) imagebot(ctx context.Context, env []string, stdout io.Writer, command string, args ...string) error {
	argv := append([]string{command, "--log-level", d.logLevel}, d.mirrors...)
	cmd := exec.CommandContext(ctx, d.bin, append(argv, args...)...)
	cmd.Env = append(cleanEnv(), env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, io.MultiWriter(d.stderr, &stderr)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("imagebot %s: %w", command, err)
	}
	return nil
}

// cleanEnv is the process environment less what would change imagebot's
// behaviour: GitHub's and imagebot's variables, and Docker's config.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "IMAGEBOT_") || strings.HasPrefix(k, "RUNNER_") || k == "DOCKER_CONFIG" || k == "CI" {
			continue
		}
		env = append(env, kv)
	}
	return env
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
