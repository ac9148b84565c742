package gitops_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestFailures: one failed update never stops the others, and GitHub's
// transient answers are retried within bounds.
func TestFailures(t *testing.T) {
	t.Parallel()
	w := newWorld(t)

	t.Run("push and API failures", func(t *testing.T) {
		w.gs.FailPushes(1)
		w.gh.FailNext(http.MethodPost, "/pulls", http.StatusBadGateway, nil)
		before := w.counters()
		res := w.run(t)
		after := w.counters()
		// 17 pushes tried, one refused; 16 PRs, one of them tried twice.
		if d := (counters{writes: after.writes - before.writes, pushes: after.pushes - before.pushes}); d != (counters{writes: 17, pushes: 17}) {
			t.Errorf("writes and pushes: %+v", d)
		}
		if len(res.Failed) != 1 || !strings.HasPrefix(res.Failed[0].Error(), kubectl+": push") {
			t.Fatalf("failed: %v, want the first branch's push", res.Failed)
		}
		// The 502 hit the second branch's POST and was retried.
		diffSets(t, "opened", res.Opened, without(allBranches(), kubectl))
		if len(w.host.changes()) != len(streams)-1 {
			t.Errorf("%d PRs", len(w.host.changes()))
		}
		if w.branchExists(kubectl) {
			t.Errorf("failed push left a branch")
		}
		if !strings.Contains(w.logs.String(), "pull request failed") {
			t.Errorf("failure not logged:\n%s", w.logs.String())
		}
	})

	t.Run("rate limit is waited out", func(t *testing.T) {
		reset := w.clock.Now().Add(2 * time.Second)
		w.gh.FailNext(http.MethodPost, "/pulls", http.StatusForbidden, http.Header{
			"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset":     {strconv.FormatInt(reset.Unix(), 10)},
		})
		start := w.clock.Now()
		before := w.counters()
		slept := len(w.clock.Slept())
		res := w.runClean(t)
		if writes := w.counters().writes - before.writes; writes != 2 {
			t.Errorf("%d API writes, want 2: the limited POST and its retry", writes)
		}
		diffSets(t, "opened", res.Opened, []string{kubectl})
		waits := w.clock.Slept()[slept:]
		if len(waits) != 1 || start.Add(waits[0]).Before(reset) || waits[0] > 5*time.Second {
			t.Errorf("waited %v for a reset %v away", waits, reset.Sub(start))
		}
		w.checkBranch(t, streamOf(t, kubectl), streamOf(t, kubectl).To)
	})

	t.Run("rate limit beyond MaxWait is not waited for", func(t *testing.T) {
		w.pushTag(t, "docker.io/library/node", "22.2.0")
		w.pushTag(t, "docker.io/library/redis", "7.4.2")
		w.gh.FailNext(http.MethodPatch, "/pulls/", http.StatusForbidden, http.Header{
			"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset":     {strconv.FormatInt(w.clock.Now().Add(time.Hour).Unix(), 10)},
		})
		slept := len(w.clock.Slept())
		before := w.counters()
		res := w.run(t)
		if waits := w.clock.Slept()[slept:]; len(waits) != 0 {
			t.Errorf("waited %v for a reset an hour away", waits)
		}
		// GitHub says the budget is spent for an hour: the run stops
		// writing. The PR being written and every later one that needed
		// a write (redis) are left for the next run, in one count rather
		// than one failure each; nothing else fails. The branches already
		// pushed stay pushed.
		if len(res.Failed) != 0 {
			t.Errorf("failed: %v, want nothing failed", res.Failed)
		}
		diffSets(t, "rate-limited", res.RateLimited, []string{node, redis})
		if slices.Contains(res.Updated, node) {
			t.Errorf("node's PR reported updated although its edit failed")
		}
		diffSets(t, "unchanged", res.Unchanged, without(allBranches(), node, redis))
		if after := w.counters(); after.writes-before.writes != 1 || after.pushes-before.pushes != 1 {
			t.Errorf("limited run: %+v -> %+v, want node's push and its one refused edit", before, after)
		}
		// The next run finishes the job: node's branch is current already,
		// the PR is retitled; redis is pushed and retitled.
		before = w.counters()
		res = w.runClean(t)
		diffSets(t, "updated", res.Updated, []string{node, redis})
		after := w.counters()
		if after.pushes-before.pushes != 1 || after.writes-before.writes != 2 {
			t.Errorf("catch-up run: %+v -> %+v", before, after)
		}
		if pr := w.openPRs()[node]; pr.Title != "Update node to 22.2.0" {
			t.Errorf("node PR title %q", pr.Title)
		}
	})

	t.Run("persistent 5xx fails that PR only", func(t *testing.T) {
		w.pushTag(t, "docker.io/library/node", "22.3.0")
		w.pushTag(t, "docker.io/library/redis", "7.4.3")
		for range 4 { // the first try and every retry
			w.gh.FailNext(http.MethodPatch, "/pulls/", http.StatusServiceUnavailable, nil)
		}
		res := w.run(t)
		// Branches are handled in name order: node before redis.
		if len(res.Failed) != 1 || !strings.HasPrefix(res.Failed[0].Error(), node+": edit pull request") {
			t.Fatalf("failed: %v", res.Failed)
		}
		diffSets(t, "updated", res.Updated, []string{redis})
		if pr := w.openPRs()[redis]; pr.Title != "Update redis to 7.4.3" {
			t.Errorf("redis PR title %q", pr.Title)
		}
		res = w.runClean(t)
		diffSets(t, "updated", res.Updated, []string{node})
	})
}

// TestTokenNeverPrinted: runs that fail in every way the token could leak
// through (rejected pushes, rejected credentials) keep it out of errors,
// logs, PR text and the clone's git config. Every world checks the latter
// three when it ends, too.
func TestTokenNeverPrinted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gs.FailPushes(2)
	res := w.run(t)
	if len(res.Failed) != 2 {
		t.Errorf("failed: %v", res.Failed)
	}
	w.runClean(t)

	// A token that GitHub rejects: the run fails early, and says nothing of
	// the token it tried either.
	wrong := token + "-revoked"
	o := w.options(t)
	o.Token = wrong
	if _, err := gitops.Open(w.ctx, o); err == nil {
		t.Error("a rejected token went unnoticed")
	} else if strings.Contains(err.Error(), token) {
		t.Errorf("error holds the token: %v", err)
	}
	// And one the API takes but the git remote rejects.
	other, err := gittest.New(t.TempDir(), "ghs_someone_elses_token")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.CreateRepo(owner, name, w.files, main_); err != nil {
		t.Fatal(err)
	}
	o.Token, o.URL = token, other.URL(owner+"/"+name)
	if _, err := gitops.Open(w.ctx, o); err == nil {
		t.Error("a remote that rejects the token went unnoticed")
	} else if strings.Contains(err.Error(), token) {
		t.Errorf("error holds the token: %v", err)
	}
	for _, text := range []string{w.logs.String(), w.out.String()} {
		if strings.Contains(text, token) {
			t.Errorf("token printed:\n%s", text)
		}
	}

	// As a GitHub App, whose pushes and API writes fail: no installation
	// token, JWT or piece of its key in errors, logs or PRs either. The
	// App's PRs are its own: GITHUB_TOKEN's are another identity's.
	w = newWorld(t)
	w.installApp(t, true)
	if res := w.runAs(t, w.appOptions(t, appKey(), appID, 0)); len(res.Failed) > 0 {
		t.Fatalf("the App's first run: %v", res.Failed)
	}
	w.pushTag(t, "docker.io/library/node", "22.2.0")
	w.pushTag(t, "docker.io/library/redis", "7.4.2")
	w.gs.FailPushes(1)
	for range 4 { // the first try and every retry
		w.gh.FailNext(http.MethodPatch, "/pulls/", http.StatusBadGateway, nil)
	}
	res = w.runAs(t, w.appOptions(t, appKey(), appID, 0))
	if len(res.Failed) != 2 {
		t.Errorf("failed: %v", res.Failed)
	}
	for _, err := range res.Failed {
		w.assertNoAppSecrets(t, err.Error())
	}
}
