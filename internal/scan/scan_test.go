package scan

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// describe prints a scan result one line a reference, with the text of each
// span, so that a wrong span shows up as wrong text in the golden file.
func describe(t *testing.T, root string, res Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range res.Refs {
		src, err := os.ReadFile(filepath.Join(root, r.File))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s tag=%q digest=%q tagspan=%s digestspan=%s\n",
			r.Location, r.Kind, r.Image, r.Tag, r.Digest, field(src, r.TagField), field(src, r.DigestField))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "skipped %s %s %s %q: %s\n", s.Location, s.Kind, s.Reason, s.Value, s.Detail)
	}
	for _, p := range res.Problems {
		fmt.Fprintf(&b, "problem %s\n", p.Error())
	}
	return b.String()
}

func field(src []byte, f Field) string {
	if !f.OK {
		return "-"
	}
	if f.Span.Len() == 0 {
		return fmt.Sprintf("insert@%d%q", f.Span.Start, f.Prefix)
	}
	s := fmt.Sprintf("%q", src[f.Span.Start:f.Span.End])
	if f.Scalar {
		s += "(scalar)"
	}
	return s
}

func TestDirGolden(t *testing.T) {
	root := filepath.Join("testdata", "files")
	res, err := Dir(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := describe(t, root, res)
	golden := filepath.Join("testdata", "files.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("scan mismatch (-want +got):\n%s", diff)
	}
}
