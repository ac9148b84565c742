package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

const (
	benchFiles  = 5000
	benchImages = 50
	benchTags   = 6 // per image: 1.0.0 ... 1.0.5
)

// BenchmarkScanAndPlan5000 times a whole plan over a large repository:
// scan.Dir over 5,000 Deployments (1-3 containers each, over 50 images,
// some pinned by digest) and plan.Build against an in-process registry,
// with a fresh client per iteration so every lookup really happens.
//
//	go test ./internal/plan -run '^$' -bench ScanAndPlan5000 -benchmem
func BenchmarkScanAndPlan5000(b *testing.B) {
	repos := map[string][][]string{}
	for i := range benchImages {
		var groups [][]string
		for j := range benchTags {
			groups = append(groups, []string{fmt.Sprintf("1.0.%d", j)})
		}
		repos[benchRepo(i)] = groups
	}
	reg := newRegistry(b, repos)
	dir := b.TempDir()
	refs := writeBenchRepo(b, dir, reg)
	pols := policies(b, nil)

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := scan.Dir(b.Context(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Refs) != refs {
			b.Fatalf("scan found %d references, want %d", len(res.Refs), refs)
		}
		p, err := plan.Build(b.Context(), res, plan.Options{Registry: reg.client(), Policy: pols})
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Problems) != 0 || len(p.Updates) == 0 {
			b.Fatalf("plan: %d updates, problems %+v", len(p.Updates), p.Problems)
		}
	}
	b.ReportMetric(float64(refs), "refs")
}

func benchRepo(i int) string {
	if i%5 == 0 {
		return fmt.Sprintf("ghcr.io/acme/svc%02d", i)
	}
	return fmt.Sprintf("docker.io/library/img%02d", i)
}

// writeBenchRepo writes the 5,000 manifests and returns how many image
// references they hold. The mix is deterministic.
func writeBenchRepo(b *testing.B, dir string, reg *testRegistry) int {
	b.Helper()
	refs := 0
	for n := range benchFiles {
		var sb strings.Builder
		fmt.Fprintf(&sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%d\n  labels: {team: t%d}\n", n, n%17)
		sb.WriteString("spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n")
		for c := range 1 + n%3 {
			i := (n*7 + c*13) % benchImages
			tag := fmt.Sprintf("1.0.%d", (n+c)%benchTags)
			img := benchRepo(i)
			if name, ok := strings.CutPrefix(img, "docker.io/library/"); ok && n%2 == 0 {
				img = name // short names are normalized too
			}
			ref := img + ":" + tag
			if n%50 == 0 {
				ref += "@" + reg.digests[benchRepo(i)+":"+tag] // some are pinned
			}
			fmt.Fprintf(&sb, "        - name: c%d\n          image: %s\n          ports:\n            - containerPort: %d\n", c, ref, 8000+c)
			refs++
		}
		p := filepath.Join(dir, fmt.Sprintf("team%02d", n%40), fmt.Sprintf("app%04d.yaml", n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return refs
}
