package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// parse parses a command line as imagebot would, with the command's run
// function swapped for one that keeps the options (cli/cli's runF): the
// flags and arguments are checked, and nothing runs.
func parse[O any](newCmd func(*factory, func(context.Context, O) error) *cobra.Command, args []string, env environ) (O, error) {
	var got O
	f := &factory{IO: iostreams{Out: io.Discard, ErrOut: io.Discard}, Env: env}
	cmd := newCmd(f, func(_ context.Context, o O) error { got = o; return nil })
	cmd.SetArgs(append([]string{}, args...))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetFlagErrorFunc(flagError)
	err := cmd.Execute()
	return got, err
}

func parseServe(args []string, env environ) (*serveOptions, error) {
	return parse(newServeCmd, args, env)
}

// imagebot runs a command line in-process with env as its environment.
func imagebot(t *testing.T, env environ, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, &factory{IO: iostreams{Out: &out, ErrOut: &errb}, Env: env})
	return out.String(), errb.String(), code
}

func TestParseFlags(t *testing.T) {
	o, err := parse(newPlanCmd, []string{"./repo", "-o", "json", "--concurrency=3", "--log-level", "debug", "-v"}, environ{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Repo != "./repo" || o.Output.value != "json" || o.Concurrency.n != 3 || o.LogLevel.value != "debug" || !o.Verbose {
		t.Errorf("plan ./repo -o json ...: repo %q, output %q, concurrency %d, log level %q, verbose %v",
			o.Repo, o.Output.value, o.Concurrency.n, o.LogLevel.value, o.Verbose)
	}
	o, err = parse(newPlanCmd, []string{"--repo", "./repo"}, environ{})
	if err != nil || o.Repo != "./repo" {
		t.Errorf("plan --repo ./repo: repo %q, %v", o.Repo, err)
	}
	o, err = parse(newPlanCmd, nil, environ{})
	if err != nil || o.Repo != "." || o.Output.value != "text" || o.Concurrency.n != 0 || o.LogLevel.value != "info" {
		t.Errorf("plan: defaults %+v, %v", o, err)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--concurrency", "0"}, `--concurrency: want a whole number of at least 1, got "0"`},
		{[]string{"plan", "--concurrency", "-3"}, `--concurrency: want a whole number of at least 1, got "-3"`},
		{[]string{"apply", "--concurrency", "many"}, `--concurrency: want a whole number of at least 1, got "many"`},
		{[]string{"run", "--log-level", "verbose"}, `--log-level: want debug, info, warn or error, got "verbose"`},
		{[]string{"plan", "--log-format", "xml"}, `--log-format: want text or json, got "xml"`},
		{[]string{"plan", "-o", "yaml"}, `--output: want text, json or markdown, got "yaml"`},
		{[]string{"plan", "--mirror", "docker.io"}, `--mirror: want host=url, got "docker.io"`},
		{[]string{"plan", "--mirror", "docker.io=mirror.example.com"}, `--mirror: mirror for docker.io: want an http:// or https:// URL`},
		{[]string{"serve", "--shard", "3"}, `--shard: "3": want i/n or auto/n`},
		{[]string{"serve", "--shard", "4/4"}, `--shard: "4/4": i is "4", want 0 to 3`},
		{[]string{"init", "--from", "dependabot"}, `--from: want flux or renovate, got "dependabot"`},
		{[]string{"plan", "a", "b"}, `unexpected argument "b": plan takes one DIR`},
		{[]string{"plan", "a", "--repo", "b"}, `DIR "a" and --repo "b" name two repositories: give one`},
		{[]string{"serve", "a", "b"}, `unexpected argument "b": serve takes one DIR`},
		{[]string{"plan", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"plan", "-repo", "x"}, `unknown shorthand flag: 'r' in -repo (a long flag takes two dashes: --repo)`},
	} {
		stdout, stderr, code := imagebot(t, environ{}, tc.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%q: status %d, stdout %q; want 1 and nothing", tc.args, code, stdout)
		}
		wantPrefix := "imagebot " + tc.args[0] + ": " + tc.want
		if !strings.HasPrefix(stderr, wantPrefix) || !strings.Contains(stderr, "Run 'imagebot "+tc.args[0]+" --help' for usage.") {
			t.Errorf("%q: stderr\n%s\nwant it to start with\n%s", tc.args, stderr, wantPrefix)
		}
	}
}
