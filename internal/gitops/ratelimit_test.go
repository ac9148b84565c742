package gitops_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// TestSecondaryLimitWaitedOut: GitHub allows a burst of writes, then
// answers 403 or 429 with a short Retry-After. The run waits it out (in
// the fake clock) and carries on: every PR is opened, nothing fails.
func TestSecondaryLimitWaitedOut(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusForbidden, http.StatusTooManyRequests} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			const n = 7
			w := newWorld(t, withRepo(fleet(t, n)), withGitHub(githubtest.WithSecondaryLimit(githubtest.SecondaryLimit{Writes: 2, Per: time.Minute, Status: status})))
			res := w.runClean(t)
			if len(res.Opened) != n {
				t.Errorf("opened %d PRs, want %d", len(res.Opened), n)
			}
			waits := w.clock.Slept()
			// 7 PRs at 2 a minute: three full windows waited out.
			if len(waits) != 3 {
				t.Errorf("waited %v, want three waits for the window to turn", waits)
			}
			for _, d := range waits {
				if d <= 0 || d > time.Minute {
					t.Errorf("waited %v, want within the minute GitHub asked", d)
				}
			}
			if got, want := w.gh.Writes(), n+len(waits); got != want {
				t.Errorf("%d API writes, want %d: one per PR and one refused per wait", got, want)
			}
		})
	}
}

// TestSecondaryLimitBeyondCap: GitHub asks for an hour's pause, beyond the
// longest wait of a run. The run stops writing at once: the PRs written so
// far stay, the rest are left for the next run in one count, nothing is
// reported failed, and nothing waits. The next run, an hour later, goes on.
func TestSecondaryLimitBeyondCap(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withGitHub(githubtest.WithSecondaryLimit(githubtest.SecondaryLimit{Writes: 5, Per: time.Hour})))
	before := w.counters()
	res := w.run(t)
	if len(res.Failed) != 0 {
		t.Errorf("failed: %v, want none", res.Failed)
	}
	all := allBranches()
	slices.Sort(all)
	diffSets(t, "opened", res.Opened, all[:5])
	diffSets(t, "rate-limited", res.RateLimited, all[5:])
	if waits := w.clock.Slept(); len(waits) != 0 {
		t.Errorf("waited %v for an hour's limit", waits)
	}
	after := w.counters()
	// Five PRs, the sixth refused; the sixth branch was pushed before
	// its PR was refused, and no branch after it.
	if got := (counters{after.writes - before.writes, after.pushes - before.pushes}); got != (counters{6, 6}) {
		t.Errorf("writes and pushes %+v, want {6 6}", got)
	}
	for _, b := range all[6:] {
		if w.branchExists(b) {
			t.Errorf("%s pushed after the run stopped writing", b)
		}
	}

	w.clock.Sleep(w.ctx, time.Hour)
	res = w.run(t)
	diffSets(t, "opened an hour later", res.Opened, all[5:10])
	diffSets(t, "rate-limited an hour later", res.RateLimited, all[10:])
	diffSets(t, "unchanged an hour later", res.Unchanged, all[:5])
}

// TestPrimaryLimitSpent: the hourly budget runs out mid-run (403,
// X-RateLimit-Remaining: 0, a reset most of an hour away). As with a long
// secondary limit, the run stops writing and leaves the rest, without
// waiting and without a failure each; an hour later the next run goes on.
func TestPrimaryLimitSpent(t *testing.T) {
	t.Parallel()
	// The repository, the open and the closed listing, then three PRs.
	w := newWorld(t, withGitHub(githubtest.WithRateLimit(6)))
	res := w.run(t)
	if len(res.Failed) != 0 {
		t.Errorf("failed: %v, want none", res.Failed)
	}
	all := allBranches()
	slices.Sort(all)
	diffSets(t, "opened", res.Opened, all[:3])
	diffSets(t, "rate-limited", res.RateLimited, all[3:])
	if waits := w.clock.Slept(); len(waits) != 0 {
		t.Errorf("waited %v for a reset most of an hour away", waits)
	}
	// The sixth answer says none remain: go-github refuses the seventh
	// request itself, so not even a refused one reaches GitHub.
	if requests := w.host.requests(); requests != 6 {
		t.Errorf("%d requests, want the budget's 6", requests)
	}

	w.clock.Sleep(w.ctx, time.Hour)
	res = w.run(t)
	diffSets(t, "opened an hour later", res.Opened, all[3:6])
}
