package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/imagebot/imagebot/internal/job"
)

// TestExitCode: the one mapping from a command's error to its status, and
// what is printed for it.
func TestExitCode(t *testing.T) {
	cause := errors.New("401")
	for _, tc := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, exitOK, ""},
		{errPartial, exitPartial, ""},
		{fmt.Errorf("run: %w", errPartial), exitPartial, ""}, // the output said it
		{&job.PartialError{Err: errors.New("get repository: timeout")}, exitPartial, "imagebot run: get repository: timeout\n"},
		{&job.PartialError{}, exitPartial, ""},
		{errSilent, exitUsage, ""},
		{usagef("unexpected argument %q", "x"), exitUsage, "imagebot run: unexpected argument \"x\"\nRun 'imagebot run --help' for usage.\n"},
		{fmt.Errorf("GitHub rejected the token: %w", cause), exitUsage, "imagebot run: GitHub rejected the token: 401\n"},
		{errors.New("repository x: not a readable directory"), exitUsage, "imagebot run: repository x: not a readable directory\n"},
	} {
		var b bytes.Buffer
		printErrorFor(&b, "imagebot run", tc.err, false)
		if got := exitCode(tc.err); got != tc.code || b.String() != tc.stderr {
			t.Errorf("%v: status %d, printed %q; want %d, %q", tc.err, got, b.String(), tc.code, tc.stderr)
		}
	}
	var b bytes.Buffer
	printErrorFor(&b, "imagebot run", (&job.Options{}).AccessFor("").NoToken(job.CmdRun), true)
	if want := "::error title=imagebot run::GITHUB_TOKEN is not set: "; !bytes.HasPrefix(b.Bytes(), []byte(want)) || bytes.Count(b.Bytes(), []byte("\n")) != 1 {
		t.Errorf("on Actions: %q, want one line starting %q", b.String(), want)
	}
}
