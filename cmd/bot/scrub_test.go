package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestOutputsAreScrubbed: the last stops before stderr, an annotation,
// the step summary and the log scrub what looks like a credential, should
// an error carrying one get past the clients' own scrubbing (issue 25,
// item 2).
func TestOutputsAreScrubbed(t *testing.T) {
	const gh, gl = "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "glpat-Zq8xT3vW9yB2nK7mR4pL"
	err := fmt.Errorf("list merge requests: 401: request was: Authorization: Bearer %s; Private-Token: %s", gh, gl)
	check := func(what, out string) {
		t.Helper()
		if strings.Contains(out, gh) || strings.Contains(out, gl) {
			t.Errorf("%s quotes a token: %s", what, out)
		}
		if !strings.Contains(out, "list merge requests") {
			t.Errorf("%s lost the message: %s", what, out)
		}
	}
	for _, actions := range []bool{false, true} {
		var b bytes.Buffer
		printErrorFor(&b, "imagebot run", err, actions)
		check(fmt.Sprintf("the error (actions %t)", actions), b.String())
	}
	for _, format := range []string{"text", "json"} {
		var b bytes.Buffer
		o := newCommonOptions(&factory{IO: iostreams{Out: &b, ErrOut: &b}})
		o.LogFormat.value = format
		o.logger().Warn("list merge requests failed", "error", err, "detail", errors.Unwrap(fmt.Errorf("w: %w", err)).Error())
		check("the "+format+" log", b.String())
	}
	summary := t.TempDir() + "/summary.md"
	var b bytes.Buffer
	p := &plan.Plan{Problems: []plan.Problem{{File: "a.yaml", Line: 1, Message: err.Error()}}}
	annotate(&b, environ{Actions: true, StepSummary: summary}, p, runCost{})
	check("the annotation", b.String())
	md, rerr := os.ReadFile(summary)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if strings.Contains(string(md), gh) || strings.Contains(string(md), gl) {
		t.Errorf("the step summary quotes a token: %s", md)
	}
}
