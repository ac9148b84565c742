package job

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/plan"
)

// TestPreview: Run's dry run without a token (also each run of `serve
// --dry-run` without one) previews from the working tree, reports the
// plan's problems with a partial failure (exit 2) rather than only a
// status, and its summary counts the dangling references that serve's
// imagebot_dangling_references reports. Without DryRun it fails before
// any lookup.
func TestPreview(t *testing.T) {
	reg, err := fixtures.Serve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	dir := t.TempDir()
	// Tags the registry does not list: two dangling references.
	pod := "kind: Pod\nspec:\n  containers:\n  - image: nginx:0.0.1\n  - image: redis:0.0.1\n  - image: busybox:1.36.0\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	o := Options{Repo: dir, Out: &out, Registry: Registry{Mirrors: reg.Mirrors()}}

	rep, err := Run(t.Context(), o)
	if !errors.Is(err, ErrNoToken) || rep == nil || rep.Plan != nil {
		t.Fatalf("without a token: %+v, %v; want ErrNoToken and no plan", rep, err)
	}

	o.DryRun = true
	rep, err = Run(t.Context(), o)
	var partial *PartialError
	if !errors.As(err, &partial) || partial.Err != nil {
		t.Fatalf("err %v, want the partial failure of a dangling reference (exit 2), said by the report", err)
	}
	if !rep.Preview || rep.Plan == nil || rep.Result != nil {
		t.Fatalf("report %+v: want a preview with its plan", rep)
	}
	var dangling []string
	for _, pr := range rep.Plan.Problems {
		if pr.Kind == plan.KindDangling {
			dangling = append(dangling, pr.Message)
		}
	}
	if len(dangling) != 2 || !strings.Contains(dangling[0], "nginx:0.0.1 is gone from the registry") {
		t.Errorf("dangling problems %q, want nginx's and redis's", dangling)
	}
	if want := (Summary{Updates: 3, Failed: 2, Dangling: 2}); rep.Summary != want {
		t.Errorf("summary %+v, want %+v", rep.Summary, want)
	}
	if out.Len() == 0 {
		t.Error("the preview wrote no pull request to Out")
	}
}
