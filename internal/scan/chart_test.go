package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

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

// TestSkippedChartNamed: a HelmRelease's range, missing version or
// unknown source is noticed with the chart it is about, whether its
// HelmRepository is in the same file, in another file or nowhere.
func TestSkippedChartNamed(t *testing.T) {
	release := func(name, version, repo string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: " + name + ", namespace: apps}\n" +
			"spec:\n  chart:\n    spec:\n      chart: " + name + "\n" + version +
			"      sourceRef: {kind: HelmRepository, name: " + repo + "}\n"
	}
	const source = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: acme, namespace: apps}\nspec: {url: https://charts.example.com/}\n"
	fsys := fstest.MapFS{
		"releases.yaml": {Data: []byte(release("ranged", "      version: \">=1.2 <2\"\n", "acme") + "---\n" +
			release("newest", "", "acme") + "---\n" +
			release("lost", "      version: \"~1\"\n", "nowhere") + "---\n" +
			release("gone", "      version: 1.0.0\n", "nowhere"))},
		"sources.yaml": {Data: []byte(source)},
		"one.yaml":     {Data: []byte(source + "---\n" + release("here", "      version: 1.*\n", "acme"))},
	}
	res, err := FS(context.Background(), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Skipped {
		got = append(got, fmt.Sprintf("%s %s %q %s", s.Location, s.Reason, s.Value, s.Image))
	}
	want := []string{
		`one.yaml:13:16 range "here@1.*" https://charts.example.com/here`,
		`releases.yaml:8:16 range "ranged@>=1.2 <2" https://charts.example.com/ranged`,
		`releases.yaml:17:14 range "newest" https://charts.example.com/newest`,
		`releases.yaml:27:16 range "lost@~1" lost`,
		`releases.yaml:37:16 no-source "gone@1.0.0" gone`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	// Alone, a file names the charts of the sources it holds.
	one := File("one.yaml", fsys["one.yaml"].Data)
	if len(one.Skipped) != 1 || one.Skipped[0].Image != "https://charts.example.com/here" {
		t.Errorf("File skipped %+v, want here named with its repository", one.Skipped)
	}
}
