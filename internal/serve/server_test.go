package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/imagebot/imagebot/internal/job"
)

// TestRunsOnScheduleWithoutOverlap serves on a 2 s schedule with a job
// whose first run takes 3 s: the tick that falls inside it is skipped and
// counted, never run alongside. Time is synctest's, so the test takes none.
func TestRunsOnScheduleWithoutOverlap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls, inside, overlaps atomic.Int32
		each := func(ctx context.Context, _ Target) (job.Summary, Status) {
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			defer inside.Add(-1)
			if calls.Add(1) == 1 {
				time.Sleep(3 * time.Second)
			}
			return job.Summary{Updates: 3, Opened: 1, Closed: 2}, OK
		}
		h := startServer(t, Options{Dir: "checkout", Schedule: mustSchedule(t, "@every 2s"), RunAtStart: true, newRun: runOf(each)})

		synctest.Wait() // the first run is going, asleep for 3 s
		if code, _ := h.get(t, "/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz = %d during the first run, want 200", code)
		}
		if code, body := h.get(t, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no run has finished") {
			t.Errorf("/readyz before the first run = %d %q, want 503 naming why", code, body)
		}

		// 0 s: run 1 starts; 2 s: skipped; 3 s: run 1 ends; 4 s: run 2.
		time.Sleep(5 * time.Second)
		synctest.Wait()
		m := h.metrics(t)
		if m[`imagebot_runs_total{result="ok"}`] != 2 || m["imagebot_runs_skipped_total"] != 1 {
			t.Errorf("after 5 s: %v runs, %v skipped; want 2 and 1", m[`imagebot_runs_total{result="ok"}`], m["imagebot_runs_skipped_total"])
		}
		if n := overlaps.Load(); n != 0 {
			t.Errorf("%d runs started while another was going", n)
		}
		if m["imagebot_run_duration_seconds_count"] != 2 || m["imagebot_updates_found"] != 3 ||
			m[`imagebot_pull_requests_total{action="closed"}`] != 4 || m["imagebot_last_run_timestamp_seconds"] != float64(time.Now().Add(-time.Second).Unix()) {
			t.Errorf("metrics after two runs: %v", m)
		}
		if code, body := h.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("/readyz after good runs = %d %q, want 200", code, body)
		}

		// SIGTERM cancels main's context: the server stops with OK.
		if st := h.stop(t); st != OK {
			t.Errorf("Run = %v after a stop, want ok", st)
		}
	})
}

// TestStopLetsTheRunFinish: a stop waits for the current run and does not
// cancel it; past the drain limit the run is aborted.
func TestStopLetsTheRunFinish(t *testing.T) {
	for _, tc := range []struct {
		name      string
		drain     time.Duration
		wantAbort bool
	}{{"finishes", time.Minute, false}, {"aborted after the limit", 500 * time.Millisecond, true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var finished, aborted atomic.Bool
				each := func(ctx context.Context, _ Target) (job.Summary, Status) {
					select {
					case <-time.After(2 * time.Second):
						finished.Store(true)
					case <-ctx.Done():
						aborted.Store(true)
					}
					return job.Summary{}, OK
				}
				h := startServer(t, Options{Dir: "checkout", Schedule: mustSchedule(t, "@hourly"), RunAtStart: true, Drain: tc.drain, newRun: runOf(each)})
				synctest.Wait() // the run is going
				if st := h.stop(t); st != OK {
					t.Errorf("Run = %v, want ok", st)
				}
				if finished.Load() == tc.wantAbort || aborted.Load() != tc.wantAbort {
					t.Errorf("finished %v, aborted %v; want aborted %v", finished.Load(), aborted.Load(), tc.wantAbort)
				}
			})
		})
	}
}

// TestOnceReturnsTheWorstStatus: Failed over Partial over OK, whatever the
// order of the repositories.
func TestOnceReturnsTheWorstStatus(t *testing.T) {
	for _, tc := range []struct {
		statuses []Status
		want     Status
	}{
		{[]Status{OK, OK}, OK},
		{[]Status{OK, Partial, OK}, Partial},
		{[]Status{Failed, Partial}, Failed},
		{[]Status{Partial, Failed, OK}, Failed},
	} {
		var clones []string
		for range tc.statuses {
			clones = append(clones, "https://github.com/acme/r"+string(rune('a'+len(clones))))
		}
		i := 0
		s, err := New(Options{Clones: clones, Workdir: t.TempDir(), Once: true, newRun: runOf(func(context.Context, Target) (job.Summary, Status) {
			i++
			return job.Summary{}, tc.statuses[i-1]
		})})
		if err != nil {
			t.Fatal(err)
		}
		s.sync = func(context.Context, Target) error { return nil }
		if got := s.Run(context.Background()); got != tc.want {
			t.Errorf("statuses %v: Run = %v, want %v", tc.statuses, got, tc.want)
		}
	}
}

// TestReadyzSaysWhy: a failed last run makes the pod unready, and says so.
func TestReadyzSaysWhy(t *testing.T) {
	s := &Server{metrics: newMetrics()}
	s.last = lastRun{done: true, status: Partial, end: time.Unix(0, 0)}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "exited with status 2 (partial)") {
		t.Errorf("/readyz = %d %q, want 503 naming status 2", rec.Code, rec.Body.String())
	}
}

// runOf is a run of job alone, sharing nothing between repositories.
func runOf(each func(context.Context, Target) (job.Summary, Status)) func() pass {
	return func() pass { return pass{each: each} }
}

func TestNewRefuses(t *testing.T) {
	each := func(context.Context, Target) (job.Summary, Status) { return job.Summary{}, OK }
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no schedule", Options{Dir: ".", newRun: runOf(each)}, "no schedule"},
		{"shard without clones", Options{Dir: ".", Once: true, Shard: Shard{Index: 0, Count: 2}, newRun: runOf(each)}, "there are none"},
		{"auto shard unresolved", Options{Clones: []string{"https://github.com/a/b"}, Once: true, Shard: Shard{Count: 2, Auto: true}, newRun: runOf(each)}, "not known yet"},
		{"clone URL without owner", Options{Clones: []string{"https://github.com/b"}, Once: true, newRun: runOf(each)}, "cannot tell owner/name"},
	} {
		if _, err := New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// harness is a Server running in a goroutine, served over an in-memory
// listener so that it can live in a synctest bubble.
type harness struct {
	s      *Server
	client *http.Client
	cancel context.CancelFunc
	done   chan Status
}

func startServer(t *testing.T, o Options) *harness {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln := newMemListener()
	s.listen = func() (net.Listener, error) { return ln, nil }
	s.sync = func(context.Context, Target) error { return nil }
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{s: s, cancel: cancel, done: make(chan Status, 1),
		client: &http.Client{Transport: &http.Transport{DialContext: ln.dial}}}
	go func() { h.done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); h.client.CloseIdleConnections() })
	return h
}

// stop cancels Run's context and returns what Run returned.
func (h *harness) stop(t *testing.T) Status {
	t.Helper()
	h.client.CloseIdleConnections()
	h.cancel()
	return <-h.done
}

func (h *harness) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := h.client.Get("http://imagebot" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metrics parses /metrics into "name{label="value"}" -> value, with
// histograms as their _count.
func (h *harness) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	code, body := h.get(t, "/metrics")
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
