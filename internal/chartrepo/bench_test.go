package chartrepo_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// BenchmarkIndexes20x5000 is issue 21's chart workload for HTTP
// repositories: 20 repositories whose indexes hold 5,000 versions each
// (50 charts of 100 versions, about 2.3 MiB of index.yaml as Helm writes
// it), every request answered after 20 ms, and 200 lookups (10 charts of
// each repository), 16 at once, with a fresh Client each time, as each
// run has. Each index must be fetched and parsed once. It reports the
// peak heap sampled during the lookups less the heap in use before them
// (the servers' indexes), and the process's peak RSS, servers included.
//
//	go test ./internal/chartrepo -run '^$' -bench Indexes20x5000 -benchtime 3x
func BenchmarkIndexes20x5000(b *testing.B) {
	const repos, charts, perChart = 20, 50, 100
	var servers []*helmrepotest.Server
	for r := range repos {
		var cs []helmrepotest.Chart
		for ch := range charts {
			for v := range perChart {
				cs = append(cs, helmrepotest.Chart{
					Name: fmt.Sprintf("chart%d", ch), Version: fmt.Sprintf("%d.%d.%d", v/10, v%10, r),
					AppVersion: fmt.Sprintf("v%d.0", v), Description: "A chart for benchmarks, as long as most descriptions are.",
					Home: "https://example.com/home", Sources: []string{"https://github.com/example/charts"},
				})
			}
		}
		servers = append(servers, helmrepotest.New(b, cs, helmrepotest.WithLatency(20*time.Millisecond)))
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base) // the servers' indexes
	var peakHeap atomic.Uint64
	stop := sync.OnceFunc(sampleHeap(&peakHeap))
	defer stop()
	var requests int
	var c *chartrepo.Client
	for b.Loop() {
		c = chartrepo.New()
		var wg sync.WaitGroup
		sem := make(chan struct{}, 16)
		for i := range 200 {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				ch, err := c.Versions(b.Context(), servers[i%repos].URL, fmt.Sprintf("chart%d", i/repos))
				if err != nil || len(ch.Versions) != perChart {
					b.Errorf("%v, %d versions", err, len(ch.Versions))
				}
			})
		}
		wg.Wait()
		requests = 0
		for _, s := range c.Stats() {
			if s.Indexes != 1 || s.Requests != 1 {
				b.Fatalf("%+v: want one index request per repository", s)
			}
			requests += s.Requests
		}
	}
	stop()
	runtime.GC()
	var live runtime.MemStats
	runtime.ReadMemStats(&live) // the last run's indexes, still held by c
	runtime.KeepAlive(c)
	b.ReportMetric(float64(live.HeapInuse-min(live.HeapInuse, base.HeapInuse))/(1<<20), "client-live-MiB")
	b.ReportMetric(float64(requests), "requests")
	b.ReportMetric(float64(peakHeap.Load()-min(peakHeap.Load(), base.HeapInuse))/(1<<20), "client-peak-heap-MiB")
	b.ReportMetric(peakRSS(), "peak-RSS-MiB")
}

// sampleHeap records the largest live heap seen every millisecond.
func sampleHeap(peak *atomic.Uint64) func() {
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	return func() { close(done) }
}

// peakRSS is the process's VmHWM in MiB (Linux), servers included.
func peakRSS() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
