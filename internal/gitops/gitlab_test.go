package gitops_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
)

// onGitLab makes a world on GitLab's fake.
var onGitLab = onHost(hostMaker{"gitlab", startGitLab})

func gitlabOf(w *world) *gitlabtest.Server { return w.host.(gitlabHost).Server }

// withMeta makes every merge request a draft, labelled, with reviewers,
// merging itself.
func withMeta(reviewers ...string) func(*gitops.RunOptions) {
	return func(o *gitops.RunOptions) {
		o.Draft = true
		o.Meta = func(u plan.Update) gitops.Meta {
			return gitops.Meta{Labels: []string{"dependencies"}, Reviewers: reviewers, Automerge: []string{u.Type}}
		}
	}
}

// TestGitLabMergeRequestMeta: a draft is "Draft: " in the title, which a
// rerun does not take for a changed title and a retitle keeps; labels are
// added; reviewers are user IDs (a group, which GitLab cannot ask, is left
// out and logged); auto-merge is retried through GitLab's 405s right
// after creation, with a doubling wait in the run's clock.
func TestGitLabMergeRequestMeta(t *testing.T) {
	t.Parallel()
	w := newWorld(t, onGitLab)
	gitlabOf(w).SetMergeChecks(2)
	w.runClean(t, withMeta("jane", "acme/platform"))
	mrs := w.host.changes()
	if len(mrs) != len(streams) {
		t.Fatalf("%d merge requests, want %d", len(mrs), len(streams))
	}
	for _, mr := range mrs {
		if !mr.Draft || !strings.HasPrefix(mr.Title, "Draft: Update ") {
			t.Errorf("!%d: title %q, draft %v", mr.Number, mr.Title, mr.Draft)
		}
		if !slices.Equal(mr.Labels, []string{"dependencies"}) || !slices.Equal(mr.Reviewers, []string{"jane"}) || !mr.AutoMerge {
			t.Errorf("!%d: labels %q reviewers %q auto-merge %v", mr.Number, mr.Labels, mr.Reviewers, mr.AutoMerge)
		}
	}
	if got, want := w.clock.Slept(), slices.Repeat([]time.Duration{500 * time.Millisecond, time.Second}, len(streams)); !slices.Equal(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
	contains(t, "log", w.logs.String(), "GitLab has no group reviewers")

	before := w.counters()
	res := w.runClean(t, withMeta("jane"))
	if after := w.counters(); after != before {
		t.Errorf("rerun wrote: %+v -> %+v", before, after)
	}
	diffSets(t, "unchanged", res.Unchanged, allBranches())

	w.pushTag(t, "docker.io/library/node", "22.2.0")
	res = w.runClean(t, withMeta("jane"))
	diffSets(t, "updated", res.Updated, []string{node})
	if mr := w.openPRs()[node]; mr.Title != "Draft: Update node to 22.2.0" {
		t.Errorf("retitled %q, want it still a draft", mr.Title)
	}
}

// TestGitLabAutoMergeNotYet: a GitLab that still answers 405 after every
// retry leaves the merge request open without auto-merge, says so in the
// log, and fails nothing.
func TestGitLabAutoMergeNotYet(t *testing.T) {
	t.Parallel()
	w := newWorld(t, onGitLab)
	gitlabOf(w).SetMergeChecks(100)
	res := w.runClean(t, withMeta())
	diffSets(t, "opened", res.Opened, allBranches())
	for _, mr := range w.host.changes() {
		if mr.AutoMerge || mr.State != "open" {
			t.Errorf("!%d: auto-merge %v, state %s", mr.Number, mr.AutoMerge, mr.State)
		}
	}
	contains(t, "log", w.logs.String(), "still answers 405 after 5 tries")
}

// TestGitLabRateLimit: GitLab's 429 is waited out, in the run's clock, as
// RateLimit-Reset asks when that is within the run's patience; beyond it,
// it is a *RateLimitError.
func TestGitLabRateLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, onGitLab)
	gitlabOf(w).RateLimitNext(1, 30*time.Second)
	w.runClean(t)
	if slept := w.clock.Slept(); len(slept) != 1 || slept[0] < 30*time.Second || slept[0] > 32*time.Second {
		t.Errorf("waits %v, want one of about 30s", slept)
	}

	gitlabOf(w).RateLimitNext(4, 2*time.Hour)
	_, err := gitops.Open(w.ctx, w.options(t))
	var rl *gitops.RateLimitError
	if !errors.As(err, &rl) || !strings.Contains(err.Error(), "429") {
		t.Errorf("Open under a two-hour limit: %v, want a *RateLimitError", err)
	}
}

// TestGitLabRefusals: a revoked token, a project the token cannot see and
// a read-only token are each GitLab's own answer, wrapped with what was
// being done; a read-only token's run writes nothing and fails each merge
// request on its own.
func TestGitLabRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t, onGitLab)
	gl := gitlabOf(w)

	o := w.options(t)
	o.Repository = owner + "/nothing-here"
	_, err := gitops.Open(w.ctx, o)
	if !errors.Is(err, gitops.ErrNoRepository) {
		t.Errorf("missing project: %v, want ErrNoRepository", err)
	}

	gl.Revoke(token)
	_, err = gitops.Open(w.ctx, w.options(t))
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "revoked") {
		t.Errorf("revoked token: %v", err)
	}
}
