package drift

import (
	"strings"
	"testing"
)

// The text report names each finding with its location, workload, short
// digests and pods (with each pod's digest when they differ); the
// markdown one escapes what a table cell cannot hold.
func TestReportFormats(t *testing.T) {
	a, b := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	rep := &Report{Drift: []Finding{
		{Kind: Mixed, File: "envs/prod/web.yaml", Line: 11, Image: "ghcr.io/acme/web", Cluster: "prod",
			Workload: Workload{"Deployment", "prod", "web"}, Pods: []PodDigest{{"prod/web-1", a}, {"prod/web-2", b}},
			Running: []string{a, b}, Expected: b},
		{Kind: Undeclared, Image: "ghcr.io/acme/to|ol", Cluster: "prod", Workload: Workload{"Pod", "prod", "x"},
			Pods: []PodDigest{{"prod/x", a}}, Running: []string{a}},
	}, Notices: []Notice{{Cluster: "prod", Message: "pod prod/y container app has no image ID yet"}}}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"drift: 1 mixed, 1 undeclared\n",
		"envs/prod/web.yaml:11", "Deployment prod/web", "aaaaaaaaaaaa,bbbbbbbbbbbb",
		"prod/web-1=aaaaaaaaaaaa prod/web-2=bbbbbbbbbbbb",
		"notice: cluster prod: pod prod/y container app has no image ID yet",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	md := rep.Markdown()
	if !strings.Contains(md, `ghcr.io/acme/to\|ol (in no file)`) || !strings.Contains(md, "| mixed | envs/prod/web.yaml:11 | prod |") {
		t.Errorf("markdown:\n%s", md)
	}
	if got := (&Report{}).Headline(); !strings.HasPrefix(got, "no drift") {
		t.Errorf("empty headline %q", got)
	}
}
