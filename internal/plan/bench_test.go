package plan_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/registrytest"
	"github.com/imagebot/imagebot/internal/scan"
)

// The workload of issue 10: 5,000 Deployments with 1-3 containers each
// (about 10,000 references) over 500 repositories of 12 tags on one
// registry host. Nine references in ten are on their image's fleet tag,
// the rest lag behind; one in ten is pinned as tag@sha256:...
const (
	benchFiles = 5000
	benchRepos = 500
	benchTags  = 12 // 1.0.0 ... 1.11.0, one image each
)

// BenchmarkPlan5000x500 times `plan` (scan.Dir and plan.Build with a fresh
// registry client) on the workload, behind an in-process registry that
// answers every request after a latency. Besides ns/op it reports the
// requests by kind and the round-trip bound
//
//	ceil(requests / concurrency) x latency + the wall time at 0ms
//
// as bound-ms, with x-bound the ratio of the wall time to it, and the
// process's peak RSS. Run the 0ms cases first (the default order): the
// bound of a 20ms case uses them.
//
//	make bench   # or: go test ./internal/plan -run '^$' -bench Plan5000x500 -benchtime 3x
func BenchmarkPlan5000x500(b *testing.B) {
	w := newBenchWorkload(b)
	wall0 := map[int]float64{} // concurrency -> ms per plan at 0ms
	for _, lat := range []time.Duration{0, 20 * time.Millisecond} {
		for _, conc := range []int{8, 32} { // 8: the default for this host
			b.Run(fmt.Sprintf("latency=%s/concurrency=%d", lat, conc), func(b *testing.B) {
				w.srv.SetLatency(lat)
				defer w.srv.SetLatency(0)
				var stats registry.HostStats
				var build time.Duration
				var before syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &before)
				stop := profile(b)
				start := time.Now()
				for b.Loop() {
					var took time.Duration
					stats, took = w.plan(b, conc)
					build += took
				}
				stop()
				wall := float64(time.Since(start).Milliseconds()) / float64(b.N)
				var after syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &after)
				cpu := float64(cpuTime(after)-cpuTime(before)) / float64(time.Millisecond) / float64(b.N)

				if lat == 0 {
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
				b.ReportMetric(float64(stats.ManifestHead), "heads")
				b.ReportMetric(float64(stats.Ping), "pings")
				b.ReportMetric(float64(stats.Token), "tokens")
				b.ReportMetric(float64(after.Maxrss)/1024, "peak-RSS-MiB")
			})
		}
	}
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

// benchWorkload is the registry and the repository of the benchmark.
type benchWorkload struct {
	srv    *registrytest.Server
	dir    string
	refs   int
	pinned int // repositories with a pinned reference: one HEAD each
}

func benchRepo(i int) string { return fmt.Sprintf("acme/svc%03d", i) }

func newBenchWorkload(b *testing.B) *benchWorkload {
	b.Helper()
	w := &benchWorkload{srv: registrytest.NewServer(b), dir: b.TempDir()}
	digests := pushBenchRepos(b, w.srv)

	// A fixed seed: every run plans the same repository.
	rng := rand.New(rand.NewPCG(10, 500))
	fleet := make([]int, benchRepos)
	for i := range fleet {
		fleet[i] = benchTags - 1 - rng.IntN(3) // some fleets lag too
	}
	pinnedRepos := map[int]bool{}
	for n := range benchFiles {
		var sb strings.Builder
		fmt.Fprintf(&sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%d\n  labels: {team: t%d}\n", n, n%17)
		sb.WriteString("spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n")
		for c := range 1 + rng.IntN(3) {
			repo := rng.IntN(benchRepos)
			tag := fleet[repo]
			if rng.IntN(10) == 0 {
				tag = rng.IntN(fleet[repo] + 1) // lagging
			}
			ref := fmt.Sprintf("ghcr.io/%s:1.%d.0", benchRepo(repo), tag)
			if rng.IntN(10) == 0 {
				ref += "@" + digests[repo][tag]
				pinnedRepos[repo] = true
			}
			fmt.Fprintf(&sb, "        - name: c%d\n          image: %s\n          ports:\n            - containerPort: %d\n", c, ref, 8000+c)
			w.refs++
		}
		p := filepath.Join(w.dir, fmt.Sprintf("team%02d", n%40), fmt.Sprintf("app%04d.yaml", n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	w.pinned = len(pinnedRepos)
	b.Logf("workload: %d files, %d references, %d repositories, %d with a pinned reference", benchFiles, w.refs, benchRepos, w.pinned)
	return w
}

// pushBenchRepos pushes every tag of every repository, a distinct image
// each, and returns the digests by repository and tag.
func pushBenchRepos(b *testing.B, srv *registrytest.Server) [][]string {
	b.Helper()
	digests := make([][]string, benchRepos)
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range benchRepos {
		digests[i] = make([]string, benchTags)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			for j := range benchTags {
				img := registrytest.Image(b, fmt.Sprintf("%d.%d", i, j), created.AddDate(0, 0, j), nil)
				digests[i][j] = srv.Push(b, benchRepo(i), fmt.Sprintf("1.%d.0", j), img)
			}
		})
	}
	wg.Wait()
	return digests
}

// plan runs one plan as `imagebot plan` does and checks its cost: one
// listing per repository, one HEAD per repository with a pinned
// reference, one probe. It returns the requests and how long plan.Build
// took (the lookups, without the scan).
func (w *benchWorkload) plan(b *testing.B, concurrency int) (registry.HostStats, time.Duration) {
	res, err := scan.Dir(b.Context(), w.dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Refs) != w.refs {
		b.Fatalf("scan found %d references, want %d", len(res.Refs), w.refs)
	}
	c := registry.NewClient(
		registry.WithMirrors(map[string]string{"ghcr.io": w.srv.URL()}),
		registry.WithKeychain(authn.NewMultiKeychain()),
		registry.WithConcurrency(concurrency),
	)
	start := time.Now()
	p, err := plan.Build(b.Context(), res, plan.Options{Registry: c, Policy: policies(b, nil)})
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	if len(p.Problems) != 0 || len(p.Updates) == 0 {
		b.Fatalf("plan: %d updates, problems %+v", len(p.Updates), p.Problems)
	}
	s := c.Stats()
	if len(s) != 1 || s[0].Tags != benchRepos || s[0].ManifestHead != w.pinned || s[0].Ping != 1 || s[0].Requests != benchRepos+w.pinned+1 {
		b.Fatalf("requests %+v, want %d listings, %d HEADs and one probe", s, benchRepos, w.pinned)
	}
	return s[0], took
}
