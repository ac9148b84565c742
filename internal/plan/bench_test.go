package plan_test

import (
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// The size of issue 10's workload (see workload_test.go).
const (
	benchFiles = 5000
	benchRepos = 500
)

// BenchmarkPlan5000x500 times `plan` (scan.Dir and plan.Build with a fresh
// registry client) on issue 10's workload, behind an in-process registry
// that answers every request after a latency, sends ETags and wants a
// bearer token from its token service, as Docker Hub, GHCR and Quay do.
// Besides
// ns/op it reports the requests by kind and the round-trip bound
//
//	ceil(requests / concurrency) x latency + the wall time at 0ms
//
// as bound-ms, with x-bound the ratio of the wall time to it, and the
// process's peak RSS. Run the 0ms cases first (the default order): the
// bound of a 20ms case uses them. The cache cases are the second plan
// with --cache: within the TTL (no request at all), and revalidated
// (--cache-ttl 0: one conditional listing per repository, answered 304,
// and the HEADs of pinned references, which a 304 cannot vouch for).
//
//	make bench   # or: go test ./internal/plan -run '^$' -bench Plan5000x500 -benchtime 3x
func BenchmarkPlan5000x500(b *testing.B) {
	w := newWorkload(b, benchFiles, benchRepos, registrytest.WithETags(), registrytest.WithTokenAuth(time.Hour))
	wall0 := map[int]float64{} // concurrency -> ms per plan at 0ms
	cold := func(s registry.HostStats) bool {
		return s.Tags == benchRepos && s.ManifestHead == w.pinned && s.Ping == 1 && s.Token == 1 && s.Requests == benchRepos+w.pinned+2
	}
	for _, lat := range []time.Duration{0, 20 * time.Millisecond} {
		for _, conc := range []int{8, 32} { // 8: the default for this host
			b.Run(fmt.Sprintf("latency=%s/concurrency=%d", lat, conc), func(b *testing.B) {
				w.measure(b, lat, conc, wall0, cold)
			})
		}
	}

	dir := b.TempDir()
	open := func(ttl time.Duration) registry.Option {
		cc, err := cache.Open(dir, cache.WithTTL(ttl))
		if err != nil {
			b.Fatal(err)
		}
		return registry.WithCache(cc)
	}
	w.plan(b, open(time.Hour)) // the first plan, which fills the cache
	lat := 20 * time.Millisecond
	b.Run("latency=20ms/concurrency=8/cache=fresh", func(b *testing.B) {
		w.measure(b, lat, 8, wall0, func(s registry.HostStats) bool { return s.Requests == 0 }, open(time.Hour))
	})
	b.Run("latency=20ms/concurrency=8/cache=revalidate", func(b *testing.B) {
		w.measure(b, lat, 8, wall0, func(s registry.HostStats) bool {
			return s.Tags == benchRepos && s.NotModified == benchRepos && s.ManifestHead == w.pinned && s.Token == 1 && s.Requests == benchRepos+w.pinned+2
		}, open(0))
	})
}

// measure runs the plan b.N times and reports its figures; every plan
// must cost what ok accepts.
func (w *workload) measure(b *testing.B, lat time.Duration, conc int, wall0 map[int]float64, ok func(registry.HostStats) bool, opts ...registry.Option) {
	w.srv.SetLatency(lat)
	defer w.srv.SetLatency(0)
	opts = append(opts, registry.WithConcurrency(conc))
	var stats registry.HostStats
	var build time.Duration
	var before syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	stop := profile(b)
	start := time.Now()
	for b.Loop() {
		var took time.Duration
		_, stats, took = w.plan(b, opts...)
		if !ok(stats) {
			b.Fatalf("requests %+v: not what this plan should cost (%d repositories, %d with a pinned reference)", stats, w.repos, w.pinned)
		}
		build += took
	}
	stop()
	wall := float64(time.Since(start).Milliseconds()) / float64(b.N)
	var after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := float64(cpuTime(after)-cpuTime(before)) / float64(time.Millisecond) / float64(b.N)

	if lat == 0 && len(opts) == 1 {
		wall0[conc] = wall
	}
	bound := math.Ceil(float64(stats.Requests)/float64(conc))*float64(lat.Milliseconds()) + wall0[conc]
	b.ReportMetric(wall, "wall-ms")
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "build-ms")
	b.ReportMetric(cpu, "cpu-ms")
	b.ReportMetric(bound, "bound-ms")
	b.ReportMetric(wall/bound, "x-bound")
	b.ReportMetric(float64(stats.Requests), "requests")
	b.ReportMetric(float64(stats.Tags), "tags")
	b.ReportMetric(float64(stats.NotModified), "not-modified")
	b.ReportMetric(float64(stats.ManifestHead), "heads")
	b.ReportMetric(float64(stats.Ping), "pings")
	b.ReportMetric(float64(stats.Token), "tokens")
	b.ReportMetric(float64(stats.FromCache), "from-cache")
	b.ReportMetric(float64(after.Maxrss)/1024, "peak-RSS-MiB")
}

// profile writes a CPU profile of the timed loop alone (not of pushing the
// 6,000 images) to $IMAGEBOT_BENCH_CPUPROFILE, if set; -cpuprofile would
// be mostly set-up.
func profile(b *testing.B) func() {
	path := os.Getenv("IMAGEBOT_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func cpuTime(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
