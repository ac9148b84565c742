package serve

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/registry"
)

// TestRunsRepositoriesAtOnce: a run works on Parallel repositories at once
// and no more, each run gets its own pass from newRun (what its
// repositories share), whose done is called once, after every repository,
// and whose registry cost the metrics count by host and kind.
func TestRunsRepositoriesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var clones []string
		for i := range 10 {
			clones = append(clones, fmt.Sprintf("https://github.com/acme/svc%02d", i))
		}
		var runs, dones atomic.Int32
		var mu sync.Mutex
		inflight, most := 0, 0
		newRun := func() pass {
			runs.Add(1)
			var jobs atomic.Int32
			return pass{
				each: func(ctx context.Context, _ Target) (job.Summary, Status) {
					jobs.Add(1)
					mu.Lock()
					inflight++
					most = max(most, inflight)
					mu.Unlock()
					time.Sleep(time.Second)
					mu.Lock()
					inflight--
					mu.Unlock()
					return job.Summary{Updates: 1}, OK
				},
				done: func() []registry.HostStats {
					dones.Add(1)
					if n := jobs.Load(); n != 10 {
						t.Errorf("Done after %d of 10 repositories", n)
					}
					return []registry.HostStats{{Host: "ghcr.io", Requests: 5, Ping: 1, Tags: 4, NotModified: 2, FromCache: 7}}
				},
			}
		}
		start := time.Now()
		h := startServer(t, Options{Clones: clones, Workdir: t.TempDir(), Schedule: mustSchedule(t, "@every 1h"),
			RunAtStart: true, Parallel: 3, newRun: newRun})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		m := h.metrics(t)
		if most != 3 {
			t.Errorf("at most %d repositories at once, want 3", most)
		}
		// 10 repositories of 1 s, 3 at once: 4 s.
		if took := m["imagebot_last_run_timestamp_seconds"] - float64(start.Unix()); took != 4 {
			t.Errorf("the run took %vs, want 4", took)
		}
		if runs.Load() != 1 || dones.Load() != 1 {
			t.Errorf("newRun called %d times, done %d; want once each", runs.Load(), dones.Load())
		}
		for k, want := range map[string]float64{
			`imagebot_registry_requests_total{host="ghcr.io"}{kind="tags"}`: 4,
			`imagebot_registry_requests_total{host="ghcr.io"}{kind="ping"}`: 1,
			`imagebot_registry_not_modified_total{host="ghcr.io"}`:          2,
			`imagebot_registry_cache_answers_total{host="ghcr.io"}`:         7,
			`imagebot_updates_found`:                                        10,
		} {
			if m[k] != want {
				t.Errorf("%s = %v, want %v", k, m[k], want)
			}
		}
		if st := h.stop(t); st != OK {
			t.Errorf("Run = %v after a stop, want ok", st)
		}
	})
}
