package plan_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// The workload of issue 10, at any size: Deployments with 1-3 containers
// each over repositories of workloadTags tags on one registry host. Nine
// references in ten are on their image's fleet tag, the rest lag behind;
// one in ten is pinned as tag@sha256:... BenchmarkPlan5000x500 runs it at
// 5,000 files over 500 repositories, TestWorkloadCost at a size for every
// `make test`.
const workloadTags = 12 // 1.0.0 ... 1.11.0, one image each

// workload is the registry and the repository of a plan to measure.
type workload struct {
	srv    *registrytest.Server
	dir    string
	repos  int
	refs   int
	pinned int // repositories with a pinned reference: one HEAD each
}

func workloadRepo(i int) string { return fmt.Sprintf("acme/svc%03d", i) }

func newWorkload(tb testing.TB, files, repos int, opts ...registrytest.Option) *workload {
	tb.Helper()
	w := &workload{srv: registrytest.NewServer(tb, opts...), dir: tb.TempDir(), repos: repos}
	digests := pushWorkload(tb, w.srv, repos)

	// A fixed seed: every run plans the same repository. This one gives
	// the shape at 5,000/500: 10,006 references, 427 repositories
	// with a pinned one.
	rng := rand.New(rand.NewPCG(33, 500))
	fleet := make([]int, repos)
	for i := range fleet {
		fleet[i] = workloadTags - 1 - rng.IntN(3) // some fleets lag too
	}
	pinnedRepos := map[int]bool{}
	for n := range files {
		var sb strings.Builder
		fmt.Fprintf(&sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%d\n  labels: {team: t%d}\n", n, n%17)
		sb.WriteString("spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n")
		for c := range 1 + rng.IntN(3) {
			repo := rng.IntN(repos)
			tag := fleet[repo]
			if rng.IntN(10) == 0 {
				tag = rng.IntN(fleet[repo] + 1) // lagging
			}
			ref := fmt.Sprintf("ghcr.io/%s:1.%d.0", workloadRepo(repo), tag)
			if rng.IntN(10) == 0 {
				ref += "@" + digests[repo][tag]
				pinnedRepos[repo] = true
			}
			fmt.Fprintf(&sb, "        - name: c%d\n          image: %s\n          ports:\n            - containerPort: %d\n", c, ref, 8000+c)
			w.refs++
		}
		p := filepath.Join(w.dir, fmt.Sprintf("team%02d", n%40), fmt.Sprintf("app%04d.yaml", n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	w.pinned = len(pinnedRepos)
	tb.Logf("workload: %d files, %d references, %d repositories, %d with a pinned reference", files, w.refs, repos, w.pinned)
	return w
}

// pushWorkload pushes every tag of every repository, a distinct image
// each, and returns the digests by repository and tag.
func pushWorkload(tb testing.TB, srv *registrytest.Server, repos int) [][]string {
	tb.Helper()
	digests := make([][]string, repos)
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range repos {
		digests[i] = make([]string, workloadTags)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			for j := range workloadTags {
				img := registrytest.Image(tb, fmt.Sprintf("%d.%d", i, j), created.AddDate(0, 0, j), nil)
				digests[i][j] = srv.Push(tb, workloadRepo(i), fmt.Sprintf("1.%d.0", j), img)
			}
		})
	}
	wg.Wait()
	return digests
}

// plan runs one plan as `imagebot plan` does, with a fresh registry
// client (one run), and returns it with what it cost and how long
// plan.Build took (the lookups, without the scan).
func (w *workload) plan(tb testing.TB, opts ...registry.Option) (*plan.Plan, registry.HostStats, time.Duration) {
	tb.Helper()
	res, err := scan.Dir(tb.Context(), w.dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Refs) != w.refs {
		tb.Fatalf("scan found %d references, want %d", len(res.Refs), w.refs)
	}
	base := []registry.Option{
		registry.WithMirrors(map[string]string{"ghcr.io": w.srv.URL()}),
		registry.WithKeychain(authn.NewMultiKeychain()),
	}
	c := registry.NewClient(append(base, opts...)...)
	start := time.Now()
	p, err := plan.Build(tb.Context(), res, plan.Options{Registry: c, Policy: policies(tb, nil)})
	if err != nil {
		tb.Fatal(err)
	}
	took := time.Since(start)
	c.Flush() // as the command does when the run is done
	if len(p.Problems) != 0 || len(p.Updates) == 0 {
		tb.Fatalf("plan: %d updates, problems %+v", len(p.Updates), p.Problems)
	}
	var s registry.HostStats
	if st := c.Stats(); len(st) == 1 {
		s = st[0]
	} else if len(st) > 1 {
		tb.Fatalf("requests to %d hosts: %+v", len(st), st)
	}
	return p, s, took
}
