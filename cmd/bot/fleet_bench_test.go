package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// BenchmarkFleet200x50 times `serve --once --clone ...` over 200
// repositories of 50 Deployments each (about 75 references to 100 images
// of one registry, each repository one update behind), with the registry,
// the git remote and GitHub (all in the process) answering every request
// after 20 ms.
// Each iteration is a fresh fleet: run 1 clones every repository and opens
// one pull request in each; run 2, as a long-running serve's next run,
// fetches and finds nothing new. The cache case keeps --cache between the
// two runs, within its TTL. It
// reports both runs' wall time, the registry's tags listings and requests
// per run, and the process's peak RSS (git's own processes not counted).
//
//	make bench   # or: go test ./cmd/bot -run '^$' -bench Fleet -benchtime 1x
func BenchmarkFleet200x50(b *testing.B) {
	for _, parallel := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("parallel=%d", parallel), func(b *testing.B) {
			benchFleet(b, 200, 50, 100, "--parallel", fmt.Sprint(parallel))
		})
	}
	b.Run("parallel=8/cache", func(b *testing.B) {
		benchFleet(b, 200, 50, 100, "--parallel", "8", "--cache", b.TempDir())
	})
}

func benchFleet(b *testing.B, repos, files, images int, args ...string) {
	var wall [2]time.Duration
	var listings, requests [2]int
	for b.Loop() {
		b.StopTimer()
		f := newFleet(b, repos, files, images, 20*time.Millisecond, registrytest.WithETags(), registrytest.WithLatency(20*time.Millisecond))
		b.StartTimer()
		for run := range 2 {
			f.reg.Reset()
			start := time.Now()
			code, stderr := f.serve(b, args...)
			wall[run] += time.Since(start)
			if code != exitOK {
				b.Fatalf("run %d: status %d\n%s", run+1, code, tail(stderr, 40))
			}
			listings[run] += f.listings()
			requests[run] += len(f.reg.Requests())
		}
		if n := f.openPRs(); n != repos {
			b.Fatalf("%d pull requests open, want one per repository (%d)", n, repos)
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Milliseconds())/n, "run1-ms")
	b.ReportMetric(float64(wall[1].Milliseconds())/n, "run2-ms")
	b.ReportMetric(float64(listings[0])/n, "run1-listings")
	b.ReportMetric(float64(requests[0])/n, "run1-requests")
	b.ReportMetric(float64(listings[1])/n, "run2-listings")
	b.ReportMetric(float64(requests[1])/n, "run2-requests")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
