package gitops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/rollout"
)

// TestHistoryDiffedOnce: a run walks the default branch's history once for
// each promoted environment and once to date the pre-pulls; each commit is
// diffed once, whatever the number of walks, and deciding again on the
// same session diffs nothing.
func TestHistoryDiffedOnce(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t, 40, 20)
	s := h.open(t)
	p, refs := h.plan(t, s)
	h.apply(t, s, p, refs)
	h.checkDecided(t, p)
	if got := gitops.Diffs(s); got != h.commits {
		t.Errorf("the run diffed %d commits; want each of the %d once", got, h.commits)
	}
	p, refs = h.plan(t, s)
	h.apply(t, s, p, refs)
	h.checkDecided(t, p)
	if got := gitops.Diffs(s); got != h.commits {
		t.Errorf("deciding again diffed %d commits in all; want still %d", got, h.commits)
	}
}

// TestHistoryChanges: a walk that follows one through history already
// diffed for others gets exactly the commits that changed its files, with
// each file as it was before, the root (which added it) last.
func TestHistoryChanges(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t, 40, 20)
	s := h.open(t)
	ctx := context.Background()
	all := func(string) bool { return true }
	if err := s.Changes(ctx, all, func(rollout.Change) bool { return true }); err != nil {
		t.Fatal(err)
	}
	// Bump i writes app (i/4)%10 of environment i%4: qa's app1 only at
	// bump 5, over the root's 1.0.0.
	file := historyApp("qa", 1)
	type seen struct {
		When   string
		Before string
		Nil    bool
	}
	var got []seen
	err := s.Changes(ctx, func(f string) bool { return f == file }, func(ch rollout.Change) bool {
		b, ok := ch.Before[file]
		if !ok || len(ch.Before) != 1 {
			t.Errorf("commit %s: Before %v", ch.Short(), ch.Before)
		}
		got = append(got, seen{When: ch.Time.UTC().Format("2006-01-02 15:04"), Before: string(b), Nil: b == nil})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{When: historyStart.Add(5 * time.Hour).Format("2006-01-02 15:04"), Before: deployment("ghcr.io/acme/app1:1.0.0")},
		{When: "2024-01-01 00:00", Nil: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk of %s (-want +got):\n%s", file, diff)
	}
	if n := gitops.Diffs(s); n != h.commits {
		t.Errorf("%d commits diffed, want %d", n, h.commits)
	}
}

// TestHistoryTruncated: a walk ends at rollout.MaxCommits with the oldest
// commit it looked at, and a second walk ends there too without diffing
// again.
func TestHistoryTruncated(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t, rollout.MaxCommits, 0)
	s := h.open(t)
	ctx := context.Background()
	oldest := historyStart.Add(time.Hour) // bump 1: the root is one further
	for walk := range 2 {
		var trunc *rollout.TruncatedError
		err := s.Changes(ctx, func(string) bool { return true }, func(rollout.Change) bool { return true })
		if !errors.As(err, &trunc) || !trunc.Oldest.Time.Equal(oldest) {
			t.Fatalf("walk %d: %v, want truncated at %s", walk, err, oldest)
		}
		if n := gitops.Diffs(s); n != rollout.MaxCommits {
			t.Errorf("walk %d: %d commits diffed, want %d", walk, n, rollout.MaxCommits)
		}
	}
}
