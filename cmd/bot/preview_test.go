package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/fixtures"
)

// TestPreviewProblems: `run --dry-run` without a token (also each run of
// `serve --dry-run` without one) prints the problems that `plan` prints,
// not only an exit status (internal/job's TestPreview checks the summary).
func TestPreviewProblems(t *testing.T) {
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
	var out, errOut bytes.Buffer
	o := &runOptions{commonOptions: newCommonOptions(&factory{IO: iostreams{Out: &out, ErrOut: &errOut}}), DryRun: true}
	o.Repo = dir
	for host, u := range reg.Mirrors() {
		if err := o.Mirrors.Set(host + "=" + u); err != nil {
			t.Fatal(err)
		}
	}
	err = runRun(t.Context(), o)
	if exitCode(err) != exitPartial || !said(err) {
		t.Fatalf("err %v, want the partial failure of a dangling reference (exit 2)", err)
	}
	for _, want := range []string{
		"2 problems:\n",
		"pod.yaml:4: docker.io/library/nginx:0.0.1 is gone from the registry (not in its tag list)",
		"pod.yaml:5: docker.io/library/redis:0.0.1 is gone from the registry (not in its tag list)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
}
