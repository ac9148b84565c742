package plan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

// TestBuildLeavesChartsOut: until chart repositories are looked up, the
// plan decides the images a GitOps object holds and neither looks up nor
// notices its chart versions (the imagesOnly seam).
func TestBuildLeavesChartsOut(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{"app.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
    - repoURL: https://charts.example.com
      chart: web
      targetRevision: 1.2.3
      helm:
        parameters:
          - {name: image.repository, value: nginx}
          - {name: image.tag, value: 1.26.1}
    - repoURL: https://charts.example.com
      chart: ranged
      targetRevision: 1.*
    - repoURL: https://github.com/acme/deploy.git
      path: prod
      targetRevision: main
`})
	if len(res.Charts) != 1 || len(res.Skipped) != 2 {
		t.Fatalf("scan found %d charts and %d skipped, want 1 and 2", len(res.Charts), len(res.Skipped))
	}
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: reg.client(), Policy: policies(t, map[string]policy.Spec{})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"app.yaml:11 docker.io/library/nginx:1.26.1 up-to-date"}
	if diff := cmp.Diff(want, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	if len(p.Updates) != 0 || len(p.Problems) != 0 {
		t.Errorf("updates %v, problems %v, want none", p.Updates, p.Problems)
	}
}
