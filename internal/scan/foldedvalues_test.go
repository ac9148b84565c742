package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFoldedValues (issue 25 item 13): images in Argo CD helm.values
// written as a folded or quoted string are found and noticed at the
// string, by name and tag; none is a reference (nothing can be written
// there), and none goes unaccounted for.
func TestFoldedValues(t *testing.T) {
	src := `apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
  - repoURL: https://git.example.com/acme/app.git
    path: chart
    helm:
      values: >
        image:
          repository: nginx
          tag: 1.25.3
  - repoURL: https://git.example.com/acme/app.git
    path: chart
    helm:
      values: >-
        worker:
          image: ghcr.io/acme/worker:2.0.1
        sidecar:
          image: ${SIDECAR}
  - repoURL: https://git.example.com/acme/app.git
    path: chart
    helm:
      values: "image:\n  repository: redis\n  tag: 7.2.4\n"
  - repoURL: https://git.example.com/acme/app.git
    path: chart
    helm:
      values: 'image: {repository: busybox, tag: "1.36"}'
  - repoURL: https://git.example.com/acme/app.git
    path: chart
    helm:
      values: "image: [broken"
`
	res := File("apps.yaml", []byte(src))
	if len(res.Refs) != 0 {
		t.Errorf("references %v, want none: a folded or quoted string cannot be written", res.Refs)
	}
	var got []string
	for _, s := range res.Skipped {
		if s.Reason == SkipNotChart || s.Reason == SkipNotTag {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %s %s", s.Location, s.Reason, s.Image, s.Value))
		if s.Reason == SkipFolded && !strings.Contains(s.Detail, "literal block") {
			t.Errorf("%s: detail %q does not say what to do", s.Location, s.Detail)
		}
	}
	want := []string{
		"apps.yaml:8:15 folded nginx nginx:1.25.3",
		"apps.yaml:15:15 folded ghcr.io/acme/worker ghcr.io/acme/worker:2.0.1",
		"apps.yaml:15:15 variable  ${SIDECAR}",
		"apps.yaml:23:15 folded redis redis:7.2.4",
		"apps.yaml:27:15 folded busybox busybox:1.36",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	if len(res.Problems) != 1 || res.Problems[0].Line != 31 {
		t.Errorf("problems %v, want the broken values string at line 31", res.Problems)
	}
}
