package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/retry"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// TestMain lets scripts run the bot as a real process: testscript copies
// the test binary onto $PATH as `imagebot`, and running it runs Main.
// Both the tests and each `imagebot` they run collect at GOGC=400 unless
// GOGC is set or benchmarks run (see benchmarking).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" && !benchmarking(os.Args[1:]) {
		debug.SetGCPercent(400)
	}
	testscript.Main(m, map[string]func(){
		"imagebot": func() {
			// A refused connection is retried as in production, without
			// sleeping through half a second that doubles four times.
			retry.MinWait = time.Millisecond
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script. Each script
// gets its own seeded registry (fixtures.Serve), so a script that pushes
// cannot change what another one sees. The registry's addresses are
// exported as:
//
//	REGISTRY       127.0.0.1:PORT
//	DOCKER_MIRROR  http://127.0.0.1:PORT/docker.io   (and GHCR_, QUAY_, SUSE_MIRROR)
//
// to be used as `--mirror docker.io=$DOCKER_MIRROR`, or in a file after
// `envsubst FILE`. Refresh expected output with `go test -run TestScripts -update`.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: false,
		RequireUniqueNames:  true,
		Setup:               setupRegistry,
		Cmds: withCmds(gitCmds(), giteaCmds(), gitlabCmds(), bitbucketCmds(), azureCmds(), chartCmds(), gitSourceCmds(), map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"envsubst":  cmdEnvsubst,
			"status":    cmdStatus,
			"bom":       cmdBOM,
			"nonl":      cmdNoNewline,
			"jsonvalid": cmdJSONValid,
		}),
	})
}

func setupRegistry(env *testscript.Env) error {
	reg, err := fixtures.Serve(context.Background())
	if err != nil {
		return err
	}
	env.Defer(reg.Close)
	setupRemote(env, reg) // scriptgit_test.go
	setupCharts(env)      // scriptcharts_test.go
	m := reg.Mirrors()
	env.Setenv("REGISTRY", reg.Host())
	for host, v := range map[string]string{
		"docker.io":         "DOCKER_MIRROR",
		"ghcr.io":           "GHCR_MIRROR",
		"quay.io":           "QUAY_MIRROR",
		"registry.suse.com": "SUSE_MIRROR",
	} {
		if m[host] == "" {
			return errors.New("fixtures registry has no mirror for " + host)
		}
		env.Setenv(v, m[host])
	}
	// The bot must never annotate for GitHub Actions in these scripts, even
	// when the tests themselves run there.
	env.Setenv("GITHUB_ACTIONS", "")
	// Every registry a script names has a mirror here; a request that
	// would leave the machine (a --mirror forgotten) is refused at once
	// instead of waiting on DNS, which a machine without network can make
	// take seconds, and no script passes by reaching the internet.
	for _, v := range []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"} {
		env.Setenv(v, "http://127.0.0.1:1")
	}
	env.Setenv("NO_PROXY", "127.0.0.1,localhost")
	env.Setenv("no_proxy", "127.0.0.1,localhost")
	// Each `imagebot` collects at GOGC=400 from its start, as TestMain
	// sets it only after the packages' init, which allocates some 7 MB: a
	// short run spent a third of its CPU collecting (46 ms of CPU per
	// `imagebot --version` at the default, 29 ms at 400).
	if os.Getenv("GOGC") == "" && !benchmarking(os.Args[1:]) {
		env.Setenv("GOGC", "400")
	}
	return nil
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// envsubst FILE... replaces ${NAME} in each file, in place, with the
// script's variable NAME. Only the braced form is replaced, so regexps
// ending in `$` and compose's ${VAR:-default} stay as they are; an unset
// variable is an error, so a misspelt name cannot pass unnoticed.
func cmdEnvsubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: envsubst file...")
	}
	for _, f := range args {
		path := ts.MkAbs(f)
		data, err := os.ReadFile(path)
		ts.Check(err)
		var missing []string
		out := envRef.ReplaceAllFunc(data, func(m []byte) []byte {
			name := string(envRef.FindSubmatch(m)[1])
			v := ts.Getenv(name)
			if v == "" {
				missing = append(missing, name)
			}
			return []byte(v)
		})
		if len(missing) > 0 {
			ts.Fatalf("envsubst %s: unset variables %q", f, missing)
		}
		ts.Check(os.WriteFile(path, out, 0o666))
	}
}

// jsonvalid FILE checks that FILE (or "stdout") is exactly one JSON value.
func cmdJSONValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: jsonvalid file")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	var v any
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = errors.New("more after the first JSON value")
	}
	if neg != (err != nil) {
		ts.Fatalf("jsonvalid %s: %v", args[0], err)
	}
}

// status N PROG ARGS... runs a program like exec and wants exit status N:
// `! exec` cannot tell a failed lookup (2) from a bad flag (1).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status code program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit status", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// bom FILE... puts a UTF-8 byte order mark before each file's content
// (txtar cannot hold one reliably).
func cmdBOM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: bom file...")
	}
	for _, f := range args {
		path := ts.MkAbs(f)
		data, err := os.ReadFile(path)
		ts.Check(err)
		ts.Check(os.WriteFile(path, append([]byte("\xef\xbb\xbf"), data...), 0o666))
	}
}

// nonl FILE... removes the line end after each file's last line (txtar
// always ends a file with one).
func cmdNoNewline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: nonl file...")
	}
	for _, f := range args {
		path := ts.MkAbs(f)
		data, err := os.ReadFile(path)
		ts.Check(err)
		data = bytes.TrimSuffix(data, []byte("\n"))
		data = bytes.TrimSuffix(data, []byte("\r"))
		ts.Check(os.WriteFile(path, data, 0o666))
	}
}

// benchmarking reports whether args ask for benchmarks (-test.bench with a
// pattern), read before the testing package parses them: BenchmarkFleet
// measures with the collector as configured, where the tests, which read
// no heap figure, collect at GOGC=400 rather than 100 and spend that much
// less CPU on it.
func benchmarking(args []string) bool {
	for i, a := range args {
		name, v, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "test.bench" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			v = args[i+1]
		}
		return v != ""
	}
	return false
}
