package main

import (
	"bytes"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestDanglingAnnotations: on Actions a dangling reference is an error
// annotation on its line, other problems stay warnings.
func TestDanglingAnnotations(t *testing.T) {
	p := &plan.Plan{Problems: []plan.Problem{
		{File: "apps/web.yaml", Line: 12, Kind: plan.KindDangling, Failed: true,
			Message: "ghcr.io/acme/web:1.0.0 is gone from the registry (not in its tag list): nodes without the image cached can no longer start this workload: restore the tag or move to another"},
		{File: "odd/broken.yaml", Line: 3, Message: "yaml: bad indentation"},
	}}
	var w bytes.Buffer
	annotate(&w, environ{Actions: true}, p, runCost{})
	want := "::error file=apps/web.yaml,line=12,title=Dangling image reference::ghcr.io/acme/web:1.0.0 is gone from the registry (not in its tag list): nodes without the image cached can no longer start this workload: restore the tag or move to another\n" +
		"::warning file=odd/broken.yaml,line=3::yaml: bad indentation\n"
	if w.String() != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", w.String(), want)
	}
}
