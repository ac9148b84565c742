package main

import (
	"fmt"
	"os"

	"github.com/imagebot/imagebot/internal/job"
)

// writeActionOutputs hands a run's counts to GitHub Actions as step outputs,
// which action.yml re-exports as the action's `updates` and `pull-requests`.
//
// Contract: reportRun calls it once, after the pull requests were handled. It
// does nothing outside Actions (GITHUB_ACTIONS is not "true") or when
// GITHUB_OUTPUT is unset, so `run` on a laptop never writes a stray file.
// Inside Actions it appends, as the runner expects of $GITHUB_OUTPUT:
//
//	updates=<updates in the plan>
//	pull-requests=<pull requests opened or updated by this run>
//
// Closed pull requests are not counted: a workflow that reacts to the output
// ("something to review") cares about open work. The error is for the caller
// to log; a run whose outputs could not be written still did its work.
func writeActionOutputs(env environ, s job.Summary) error {
	if !env.Actions {
		return nil
	}
	path := env.Output
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("github outputs: %w", err)
	}
	_, err = fmt.Fprintf(f, "updates=%d\npull-requests=%d\n", s.Updates, s.Opened+s.Updated)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("github outputs %s: %w", path, err)
	}
	return nil
}
