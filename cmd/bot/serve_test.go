package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	s.job = func(ctx context.Context, _ target, _ *registryPool) (runSummary, int) {
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
			s.job = func(ctx context.Context, _ target, _ *registryPool) (runSummary, int) {
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

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }
