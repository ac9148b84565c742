package gitops_test

import (
	"slices"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
)

func perHour(n int) func(*gitops.RunOptions) { return func(o *gitops.RunOptions) { o.PerHour = n } }

// TestPerHourHoldsAcrossRuns is issue 26's `serve --schedule "@every 1m"`:
// perRun is per run, so runs a minute apart opened 5 + 5 + 3 PRs. perHour
// counts the bot's own PRs on the host by their creation times, open,
// closed and merged alike, so no schedule and no second process gets past
// it; an hour later two more open.
func TestPerHourHoldsAcrossRuns(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		res := w.dashRun(t, perHour(2))
		if len(res.Opened) != 2 || len(res.Waiting) != len(streams)-2 {
			t.Fatalf("first run: opened %v, %d waiting; want 2 opened, %d waiting", res.Opened, len(res.Waiting), len(streams)-2)
		}
		if res.Limits != "2 an hour" {
			t.Errorf("limits said %q", res.Limits)
		}
		first := res.Opened

		// A person merges one and declines the other: both still count.
		open := w.openPRs()
		if err := w.host.merge(open[first[0]].Number); err != nil {
			t.Fatal(err)
		}
		if err := w.host.close(open[first[1]].Number); err != nil {
			t.Fatal(err)
		}
		for _, step := range []time.Duration{time.Minute, time.Minute, 57 * time.Minute} {
			w.advance(step)
			// A run of another process is the same: nothing is kept
			// between runs but what the host says.
			res = w.dashRun(t, perHour(2))
			if len(res.Opened) != 0 {
				t.Fatalf("%v after the first PRs: opened %v, want none within the hour", step, res.Opened)
			}
		}
		if !slices.ContainsFunc(res.Waiting, func(b string) bool { return b != "" }) {
			t.Errorf("no waiting updates")
		}
		if w.host.caps().issues && w.dashboardIssue(t).Body == "" {
			t.Errorf("the waiting updates are not on the dashboard")
		}

		w.advance(time.Minute + time.Second)
		res = w.dashRun(t, perHour(2))
		if len(res.Opened) != 2 {
			t.Errorf("an hour later: opened %v, want 2", res.Opened)
		}
		for _, b := range res.Opened {
			if slices.Contains(first, b) {
				t.Errorf("%s opened again", b)
			}
		}
		if n := len(w.openPRs()); n != 2 {
			t.Errorf("%d open PRs, want 2", n)
		}
	})
}
