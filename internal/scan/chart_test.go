package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// describeCharts prints the chart versions of a scan result with the text
// of their spans, then the image references and the notices.
func describeCharts(t *testing.T, root string, res Result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range res.Charts {
		src, err := os.ReadFile(filepath.Join(root, r.File))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "chart %s %s %s source=%q oci=%v repo=%q version=%q digest=%q span=%s digestspan=%s\n",
			r.Location, r.Kind, r.Image, r.Chart.Source, r.Chart.OCI(), r.Repo.Name(), r.Tag, r.Digest, field(src, r.TagField), field(src, r.DigestField))
	}
	b.WriteString(describe(t, root, res))
	return b.String()
}

func TestChartsGolden(t *testing.T) {
	root := filepath.Join("testdata", "charts")
	res, err := Dir(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := describeCharts(t, root, res)
	golden := filepath.Join("testdata", "charts.golden")
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
