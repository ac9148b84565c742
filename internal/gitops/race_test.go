package gitops_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestPersonPushesDuringRun: a person pushes to an open PR's branch while a
// run is going, after the run fetched the branch and before its push lands.
// The push is leased against the tip the run fetched, so the person's
// commit stays; the run reports that PR failed, and the next run hands the
// branch over as foreign (one comment, no push). The person's push lands
// at each moment a race can put it: before the remote lists its refs to
// the run (go-git's lease check refuses), and after (receive-pack refuses
// to move a ref that no longer holds what the run saw). A branch deleted
// meanwhile is not recreated either.
func TestPersonPushesDuringRun(t *testing.T) {
	t.Parallel()
	personPushesDuringRun(t)
}

// TestPersonPushesDuringRunHTTPBackend is the race against git's own
// receive-pack, end to end.
func TestPersonPushesDuringRunHTTPBackend(t *testing.T) {
	t.Parallel()
	personPushesDuringRun(t, withHTTPBackend())
}

func personPushesDuringRun(t *testing.T, opts ...worldOption) {
	w := newWorld(t, opts...)
	w.runClean(t)
	theirs := map[string]string{}

	for _, tc := range []struct {
		name, branch, image, tag string
		stage                    gittest.PushStage
		pushes                   int // the person's, and the run's refused one when it got that far
	}{
		{"before the refs are advertised", node, "docker.io/library/node", "22.2.0", gittest.BeforeAdvertise, 1},
		{"before the refs are updated", redis, "docker.io/library/redis", "7.4.2", gittest.BeforeUpdate, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A newer version makes the run push to the branch.
			w.pushTag(t, tc.image, tc.tag)
			dir := gittest.TempDir(t)
			var herr error
			w.gs.OnNextPush(tc.stage, func() {
				theirs[tc.branch], herr = w.tryHumanPush(dir, tc.branch, "pin the patch release", map[string]func(string) string{
					"README.md": replace("Image tags", "Pinned by hand. Image tags"),
				})
			})
			before := w.counters()
			res := w.run(t)
			if herr != nil {
				t.Fatalf("the person's push: %v", herr)
			}
			if len(res.Failed) != 1 || !strings.HasPrefix(res.Failed[0].Error(), tc.branch+": push") ||
				!strings.Contains(res.Failed[0].Error(), "not overwritten") {
				t.Fatalf("failed: %v, want %s's push refused", res.Failed, tc.branch)
			}
			if got := w.sha(t, tc.branch); got != theirs[tc.branch] {
				t.Errorf("%s is at %s, want the person's commit %s", tc.branch, got, theirs[tc.branch])
			}
			if got := w.counters().pushes - before.pushes; got != tc.pushes {
				t.Errorf("%d pushes reached the remote, want %d", got, tc.pushes)
			}
			for _, b := range [][]string{res.Opened, res.Updated, res.Unchanged} {
				for _, got := range b {
					if got == tc.branch {
						t.Errorf("%s reported done: %+v", tc.branch, res)
					}
				}
			}
		})
	}

	t.Run("the next runs hand the branches over", func(t *testing.T) {
		for run := 1; run <= 2; run++ {
			before := w.counters()
			res := w.runClean(t)
			diffSets(t, "foreign", res.Foreign, []string{node, redis})
			after := w.counters()
			if after.pushes != before.pushes {
				t.Errorf("run %d pushed", run)
			}
			for _, b := range []string{node, redis} {
				if got := w.sha(t, b); got != theirs[b] {
					t.Errorf("run %d moved %s: %s, want %s", run, b, got, theirs[b])
				}
				if c := w.prs()[b].Comments; len(c) != 1 || !strings.Contains(c[0], "did not make") {
					t.Errorf("run %d: %s's comments %q, want exactly one hand-over", run, b, c)
				}
			}
		}
	})

	t.Run("a branch deleted during the run", func(t *testing.T) {
		w.pushTag(t, "docker.io/library/postgres", "16.3")
		w.gs.OnNextPush(gittest.BeforeAdvertise, func() { w.tryGit("update-ref", "-d", "refs/heads/"+postgres) })
		res := w.run(t)
		if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), postgres+": push "+postgres+": the branch was deleted while this run was going") {
			t.Fatalf("failed: %v, want postgres's push refused", res.Failed)
		}
		if w.branchExists(postgres) {
			t.Errorf("the run recreated %s", postgres)
		}
	})
}

// TestConcurrentRuns: two runs at once (a scheduled one and a manual one)
// plan the same changes. One pushes its branches and opens its PRs between
// the other's fetch and its first push. The late run finds each change
// already on its branch, counts it as done, and pushes and writes nothing:
// no failures, no second round of identical commits re-triggering CI. The
// late run's commits differ from the first's in their time (the lease
// refuses the push, and the branch is found to hold the same change), or
// are the very same commits (made in the same second: nothing to send).
func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	concurrentRuns(t)
}

// TestConcurrentRunsHTTPBackend is the same against git's own receive-pack.
func TestConcurrentRunsHTTPBackend(t *testing.T) {
	t.Parallel()
	concurrentRuns(t, withHTTPBackend())
}

func concurrentRuns(t *testing.T, opts ...worldOption) {
	for _, tc := range []struct {
		name  string
		later time.Duration // the late run's commit time after the first's
	}{
		{"different commits", time.Minute},
		{"the same commits", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, opts...)
			first, firstPlan, firstReg := w.open(t)
			late, latePlan, lateReg := w.open(t)
			when := w.clock.Now()

			var firstErr error
			var firstOpened []string
			w.gs.OnNextPush(gittest.BeforeAdvertise, func() {
				o := w.runOptions(firstReg)
				o.Author.When = when
				res, err := first.Run(w.ctx, firstPlan, o)
				if err == nil {
					firstOpened = res.Opened
					for _, f := range res.Failed {
						err = f
					}
				}
				firstErr = err
			})
			before := w.counters()
			res := w.finish(t, late, latePlan, lateReg, func(o *gitops.RunOptions) { o.Author.When = when.Add(tc.later) })
			if firstErr != nil {
				t.Fatalf("the first run: %v", firstErr)
			}
			diffSets(t, "opened by the first run", firstOpened, allBranches())
			for _, f := range res.Failed {
				t.Errorf("late run failed: %v", f)
			}
			diffSets(t, "unchanged (late run)", res.Unchanged, allBranches())
			if len(res.Opened)+len(res.Updated) != 0 {
				t.Errorf("late run opened %v, updated %v", res.Opened, res.Updated)
			}
			after := w.counters()
			if got := (counters{after.writes - before.writes, after.pushes - before.pushes}); got != (counters{len(streams), len(streams)}) {
				t.Errorf("writes and pushes %+v, want the first run's %d of each only", got, len(streams))
			}
			if n := len(w.host.changes()); n != len(streams) {
				t.Errorf("%d PRs, want %d", n, len(streams))
			}
			shas := map[string]string{}
			for _, s := range streams {
				w.checkBranch(t, s, s.To)
				shas[s.Branch] = w.sha(t, s.Branch)
				if got := w.git(t, "log", "-1", "--format=%at", s.Branch); got != strconv.FormatInt(when.Unix(), 10) {
					t.Errorf("%s holds a commit of %s, want the first run's of %d", s.Branch, got, when.Unix())
				}
			}
			// And a run after both finds everything in place.
			res = w.runClean(t)
			diffSets(t, "unchanged", res.Unchanged, allBranches())
			for b, sha := range shas {
				if got := w.sha(t, b); got != sha {
					t.Errorf("%s moved: %s -> %s", b, sha, got)
				}
			}
		})
	}
}
