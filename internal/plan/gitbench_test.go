package plan_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitsource"
	"github.com/imagebot/imagebot/internal/plan"
)

const (
	gitRepoCount = 20
	gitBases     = 200
)

// gitWorkload is issue 28's workload of git-sourced versions: 200
// kustomize remote bases (10 per kustomization) over 20 repositories, each
// advertising 50 tags, every answer after latency.
func gitWorkload(b *testing.B, latency time.Duration) (map[string]string, string, *atomic.Int64) {
	var hits atomic.Int64
	var adv strings.Builder
	pkt := func(s string) { fmt.Fprintf(&adv, "%04x%s", len(s)+4, s) }
	pkt("# service=git-upload-pack\n")
	adv.WriteString("0000")
	hash := strings.Repeat("b", 40)
	pkt(hash + " HEAD\x00symref=HEAD:refs/heads/main\n")
	pkt(hash + " refs/heads/main\n")
	for i := range 50 {
		pkt(fmt.Sprintf("%s refs/tags/v1.%d.0\n", hash, i))
	}
	adv.WriteString("0000")
	body := []byte(adv.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		time.Sleep(latency) // the network's round trip
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	files := map[string]string{}
	for k := range gitBases / 10 {
		var s strings.Builder
		s.WriteString("resources:\n")
		for j := range 10 {
			i := k*10 + j
			fmt.Fprintf(&s, "  - %s/acme/repo%d.git//base%d?ref=v1.%d.0\n", srv.URL, i%gitRepoCount, i, i%7)
		}
		files[fmt.Sprintf("app%d/kustomization.yaml", k)] = s.String()
	}
	return files, strings.TrimPrefix(srv.URL, "http://"), &hits
}

// BenchmarkPlanGit200x20 times `plan` (scan and plan.Build with a fresh
// git client, as each run has) on 200 kustomize remote bases over 20 git
// repositories of one host whose every answer takes 20 ms: each
// repository is listed once, 8 at a time (gitsource.DefaultConcurrency),
// so a plan takes three round trips, 60 ms, plus the scan (wall-ms).
//
//	go test ./internal/plan -run '^$' -bench PlanGit200x20 -benchtime 3x
func BenchmarkPlanGit200x20(b *testing.B) {
	files, host, hits := gitWorkload(b, 20*time.Millisecond)
	var scan, build time.Duration
	for b.Loop() {
		hits.Store(0)
		t0 := time.Now()
		res := scanFiles(b, files)
		t1 := time.Now()
		c := gitsource.New(gitsource.WithLocalHosts([]string{host}))
		p, err := plan.Build(b.Context(), res, plan.Options{Git: gitRepos{c: c, lists: map[string]int{}}, Policy: policies(b, nil)})
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		scan, build = scan+t1.Sub(t0), build+t2.Sub(t1)
		if len(p.Problems) != 0 || len(p.Updates) == 0 {
			b.Fatalf("%d updates, problems %v", len(p.Updates), p.Problems)
		}
		if n := hits.Load(); n != gitRepoCount {
			b.Fatalf("%d requests, want one per repository (%d)", n, gitRepoCount)
		}
	}
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "wall-ms")
	b.ReportMetric(float64(scan.Milliseconds())/float64(b.N), "scan-ms")
	b.ReportMetric(gitRepoCount, "requests")
}
