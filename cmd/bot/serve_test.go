package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestServeRunsOnScheduleWithoutOverlap runs serve in-process on a 2 s
// schedule with a job whose first run takes 3 s: the tick that falls inside
// it must be skipped and counted, never run alongside.
func TestServeRunsOnScheduleWithoutOverlap(t *testing.T) {
	bare, _ := newOrigin(t, "main")
	clone := filepath.Join(t.TempDir(), "clone")
	runGit(t, "", "clone", "-q", bare, clone)

	s, addr, done, cancel := startServe(t, "--repo", clone, "--schedule", "@every 2s")
	var calls, inside, overlaps atomic.Int32
	s.job = func(ctx context.Context, dir string) (runSummary, int) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		defer inside.Add(-1)
		if calls.Add(1) == 1 {
			time.Sleep(3 * time.Second)
		}
		return runSummary{Updates: 3, Opened: 1, Closed: 2}, exitOK
	}
	go s.listen()

	base := "http://" + <-addr
	if code, _ := httpGet(t, base+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz = %d before any run, want 200", code)
	}
	// The first run sleeps 3 s, so nothing has finished yet.
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no run has finished") {
		t.Errorf("/readyz before the first run = %d %q, want 503 naming why", code, body)
	}

	var m map[string]float64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		m = scrapeMetrics(t, base)
		if m[`imagebot_runs_total{result="ok"}`] >= 2 && m["imagebot_runs_skipped_total"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: runs %v, skipped %v; want >= 2 and >= 1",
				m[`imagebot_runs_total{result="ok"}`], m["imagebot_runs_skipped_total"])
		}
	}
	if n := overlaps.Load(); n != 0 {
		t.Errorf("%d runs started while another was going", n)
	}
	if m["imagebot_run_duration_seconds_count"] < 2 || m["imagebot_updates_found"] != 3 ||
		m[`imagebot_pull_requests_total{action="closed"}`] < 4 || m["imagebot_last_run_timestamp_seconds"] < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("metrics after two runs: %v", m)
	}
	if code, body := httpGet(t, base+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after good runs = %d %q, want 200", code, body)
	}

	// SIGTERM cancels main's context: serve stops with 0.
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve returned %d after a stop, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return within 10 s of a stop")
	}
}

// TestServeStopLetsTheRunFinish: a stop waits for the current run and does
// not cancel it; past the drain limit the run is aborted.
func TestServeStopLetsTheRunFinish(t *testing.T) {
	for _, tc := range []struct {
		name      string
		drain     time.Duration
		wantAbort bool
	}{{"finishes", time.Minute, false}, {"aborted after the limit", 500 * time.Millisecond, true}} {
		t.Run(tc.name, func(t *testing.T) {
			bare, _ := newOrigin(t, "main")
			clone := filepath.Join(t.TempDir(), "clone")
			runGit(t, "", "clone", "-q", bare, clone)
			s, addr, done, cancel := startServe(t, "--repo", clone, "--schedule", "@hourly")
			s.drain = tc.drain
			started := make(chan struct{})
			var finished, aborted atomic.Bool
			s.job = func(ctx context.Context, _ string) (runSummary, int) {
				close(started)
				select {
				case <-time.After(2 * time.Second):
					finished.Store(true)
				case <-ctx.Done():
					aborted.Store(true)
				}
				return runSummary{}, exitOK
			}
			go s.listen()
			<-addr
			<-started
			cancel()
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("serve = %d, want 0", code)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not return")
			}
			if finished.Load() == tc.wantAbort || aborted.Load() != tc.wantAbort {
				t.Errorf("finished %v, aborted %v; want aborted %v", finished.Load(), aborted.Load(), tc.wantAbort)
			}
		})
	}
}

// TestSyncMovesCloneToOrigin: before each run the checkout becomes origin's
// default branch (not called main here), whatever was done to it locally.
func TestSyncMovesCloneToOrigin(t *testing.T) {
	for _, detach := range []bool{false, true} {
		bare, seed := newOrigin(t, "trunk")
		clone := filepath.Join(t.TempDir(), "clone")
		runGit(t, "", "clone", "-q", bare, clone)
		if detach { // as actions/checkout leaves a pull request's checkout
			runGit(t, clone, "checkout", "-q", "--detach")
		}
		// Local damage that a hard reset must undo.
		writeRepoFile(t, clone, "apps/a.yaml", "image: local:edit\n")
		writeRepoFile(t, clone, "local.yaml", "image: local:commit\n")
		runGit(t, clone, "add", "-A")
		runGit(t, clone, "commit", "-q", "-m", "local")
		writeRepoFile(t, clone, "apps/a.yaml", "image: dirty:1\n")

		// Origin moves on: a change, a deletion, an addition.
		writeRepoFile(t, seed, "apps/a.yaml", "image: nginx:1.26.1\n")
		os.Remove(filepath.Join(seed, "apps/b.yaml"))
		writeRepoFile(t, seed, "apps/c/d.yaml", "image: redis:7.2.5\n")
		runGit(t, seed, "add", "-A")
		runGit(t, seed, "commit", "-q", "-m", "move on")
		runGit(t, seed, "push", "-q", "origin", "trunk")
		want := strings.TrimSpace(runGit(t, seed, "rev-parse", "HEAD"))

		s := &server{log: discardLog()}
		if err := s.sync(context.Background(), target{dir: clone}); err != nil {
			t.Fatalf("detached %v: sync: %v", detach, err)
		}
		if got := strings.TrimSpace(runGit(t, clone, "rev-parse", "HEAD")); got != want {
			t.Errorf("detached %v: HEAD = %s, want origin's %s", detach, got, want)
		}
		if got := strings.TrimSpace(runGit(t, clone, "symbolic-ref", "HEAD")); got != "refs/heads/trunk" {
			t.Errorf("detached %v: HEAD -> %s, want refs/heads/trunk", detach, got)
		}
		if diff := cmp.Diff(checkoutFiles(t, seed), checkoutFiles(t, clone)); diff != "" {
			t.Errorf("detached %v: files (-origin +clone):\n%s", detach, diff)
		}
	}
}

// TestServeOnceClones: --once clones every --clone URL into --workdir, runs
// each with its own GITHUB_REPOSITORY, and exits with the worst status.
func TestServeOnceClones(t *testing.T) {
	root := t.TempDir()
	var urls []string
	for _, name := range []string{"app", "web"} {
		bare, _ := newOrigin(t, "main")
		url := filepath.Join(root, "acme", name+".git")
		os.MkdirAll(filepath.Dir(url), 0o755)
		if err := os.Rename(bare, url); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, url)
	}
	t.Setenv("GITHUB_REPOSITORY", "someone/else")
	work := t.TempDir()
	o, _, err := parseServe([]string{"--once", "--workdir", work, "--clone", urls[0], "--clone", urls[1]}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	s.job = func(_ context.Context, dir string) (runSummary, int) {
		repo := os.Getenv("GITHUB_REPOSITORY")
		seen = append(seen, repo)
		if _, err := os.Stat(filepath.Join(dir, "apps/a.yaml")); err != nil {
			t.Errorf("%s: checkout not there: %v", repo, err)
		}
		if repo == "acme/web" {
			return runSummary{Failed: 1}, exitPartial
		}
		return runSummary{}, exitOK
	}
	if code := s.serve(context.Background()); code != exitPartial {
		t.Errorf("serve --once = %d, want 2 (the worst)", code)
	}
	if diff := cmp.Diff([]string{"acme/app", "acme/web"}, seen); diff != "" {
		t.Errorf("GITHUB_REPOSITORY per run (-want +got):\n%s", diff)
	}
	if got := os.Getenv("GITHUB_REPOSITORY"); got != "someone/else" {
		t.Errorf("GITHUB_REPOSITORY after the run = %q, want it restored", got)
	}
}

func TestShard(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, tc := range []struct {
		spec, env string
		i, n      int
		err       string
	}{
		{spec: "0/1", i: 0, n: 1},
		{spec: "3/4", i: 3, n: 4},
		{spec: "auto/4", env: "2", i: 2, n: 4},
		{spec: "auto/4", err: "JOB_COMPLETION_INDEX is not set"},
		{spec: "auto/4", env: "4", err: "want 0 to 3"},
		{spec: "4/4", err: "want 0 to 3"},
		{spec: "-1/4", err: "want 0 to 3"},
		{spec: "0/0", err: "at least 1"},
		{spec: "1", err: "want i/n"},
		{spec: "x/2", err: "want 0 to 1"},
	} {
		i, n, err := parseShard(tc.spec, env(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseShard(%q, %q) = %v, want an error with %q", tc.spec, tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || i != tc.i || n != tc.n {
			t.Errorf("parseShard(%q, %q) = %d, %d, %v; want %d, %d", tc.spec, tc.env, i, n, err, tc.i, tc.n)
		}
	}

	// The shares split the list: every URL in exactly one, the same every
	// time, and none moves when another URL joins the list.
	var urls []string
	for _, c := range "abcdefghijklmnopqrstuvwxyz" {
		urls = append(urls, "https://github.com/acme/"+string(c))
	}
	var all []string
	for i := range 4 {
		got := shard(urls, i, 4)
		if len(got) == 0 || len(got) == len(urls) {
			t.Errorf("share %d of 4 holds %d of %d URLs: not a split", i, len(got), len(urls))
		}
		if diff := cmp.Diff(got, shard(urls, i, 4)); diff != "" {
			t.Errorf("share %d differs between calls:\n%s", i, diff)
		}
		grown := shard(append(slices.Clone(urls), "https://github.com/acme/new"), i, 4)
		if diff := cmp.Diff(got, slices.DeleteFunc(grown, func(u string) bool { return u == "https://github.com/acme/new" })); diff != "" {
			t.Errorf("share %d changed when a URL joined:\n%s", i, diff)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	if diff := cmp.Diff(urls, all); diff != "" {
		t.Errorf("union of the shares (-want +got):\n%s", diff)
	}
}

func TestServeUsageErrors(t *testing.T) {
	repo := t.TempDir() // no config, so no schedule: in it
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--repo", repo}, "no schedule: pass --schedule or set schedule:"},
		{[]string{"--repo", repo, "--schedule", "0 6 * *"}, `--schedule "0 6 * *"`},
		{[]string{"--repo", repo, "--schedule", "0 0 30 2 *"}, "never fires"},
		{[]string{"--clone", "https://github.com/a/b"}, "no schedule: pass --schedule"},
		{[]string{"--clone", "https://github.com/a/b", "--repo", repo, "--schedule", "@hourly"}, "--repo or --clone, not both"},
		{[]string{"--repo", repo, "--shard", "0/2", "--schedule", "@hourly"}, "it needs --clone"},
		{[]string{"--schedule", "@hourly", "extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), append([]string{"serve"}, tc.args...), &stdout, &stderr); code != exitUsage {
			t.Errorf("serve %q = %d, want 1", tc.args, code)
		}
		if !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("serve %q: stderr %q, stdout %q; want %q on stderr only", tc.args, stderr.String(), stdout.String(), tc.want)
		}
	}
}

// TestReadyzSaysWhy: a failed last run makes the pod unready, and says so.
func TestReadyzSaysWhy(t *testing.T) {
	s := &server{metrics: newServeMetrics()}
	s.last = lastRun{done: true, code: exitPartial, end: time.Unix(0, 0)}
	rec := httptest.NewRecorder()
	s.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "exited with status 2 (partial)") {
		t.Errorf("/readyz = %d %q, want 503 naming status 2", rec.Code, rec.Body.String())
	}
}

// startServe builds a server from real flags, listening on a free port. The
// caller swaps the job, then runs s.listen in a goroutine.
func startServe(t *testing.T, args ...string) (s *testServer, addr chan string, done chan int, cancel func()) {
	t.Helper()
	o, _, err := parseServe(append(args, "--listen", "127.0.0.1:0"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newServer(o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv.log = discardLog()
	addr, done = make(chan string, 1), make(chan int, 1)
	srv.onListen = func(a string) { addr <- a }
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &testServer{srv, ctx, done}, addr, done, cancel
}

type testServer struct {
	*server
	ctx  context.Context
	done chan int
}

func (s *testServer) listen() { s.done <- s.serve(s.ctx) }

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// scrapeMetrics parses /metrics into "name{label="value"}" -> value, with
// histograms as their _count.
func scrapeMetrics(t *testing.T, base string) map[string]float64 {
	t.Helper()
	code, body := httpGet(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	m := map[string]float64{}
	for name, f := range fams {
		for _, s := range f.GetMetric() {
			key := name
			for _, l := range s.GetLabel() {
				key += "{" + l.GetName() + "=\"" + l.GetValue() + "\"}"
			}
			switch {
			case s.Counter != nil:
				m[key] = s.Counter.GetValue()
			case s.Gauge != nil:
				m[key] = s.Gauge.GetValue()
			case s.Histogram != nil:
				m[key+"_count"] = float64(s.Histogram.GetSampleCount())
			}
		}
	}
	return m
}

// newOrigin makes a bare repository whose HEAD is branch, holding two
// manifests, and the working clone it was pushed from.
func newOrigin(t *testing.T, branch string) (bare, seed string) {
	t.Helper()
	dir := t.TempDir()
	bare, seed = filepath.Join(dir, "origin.git"), filepath.Join(dir, "seed")
	runGit(t, "", "init", "-q", "--bare", "-b", branch, bare)
	runGit(t, "", "init", "-q", "-b", branch, seed)
	writeRepoFile(t, seed, "apps/a.yaml", "image: nginx:1.25.3\n")
	writeRepoFile(t, seed, "apps/b.yaml", "image: redis:7.2.4\n")
	runGit(t, seed, "add", "-A")
	runGit(t, seed, "commit", "-q", "-m", "initial")
	runGit(t, seed, "remote", "add", "origin", bare)
	runGit(t, seed, "push", "-q", "origin", branch)
	return bare, seed
}

var gitOnce sync.Once

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	gitOnce.Do(func() {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("no git binary")
		}
	})
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeRepoFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkoutFiles reads a checkout without its .git.
func checkoutFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap, err := snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for k, v := range snap {
		m[k] = string(v)
	}
	return m
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
