package gitops_test

import (
	"slices"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
)

// TestDecorations: labels (created where the repository lacks them),
// reviewers, drafts and (beyond GitHub) auto-merge reach every host's PRs, and a rerun
// keeps a draft's title without writing.
func TestDecorations(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		// Three streams (node, the builder, postgres): decorations are per
		// PR, and three show them as well as seventeen.
		files, branches := withManifests(t, "ci/jobs.yaml", "charts/orders-db/values.yaml")
		w := newWorld(t, on, files)
		decorated := func(o *gitops.RunOptions) {
			o.Draft = true
			o.Meta = func(u plan.Update) gitops.Meta {
				return gitops.Meta{Labels: []string{"dependencies", "imagebot"}, Reviewers: []string{"jane", owner + "/platform"},
					Automerge: []string{u.Type}}
			}
		}
		w.runClean(t, decorated)
		prs := w.openPRs()
		if len(prs) != len(branches) {
			t.Fatalf("%d open PRs, want %d", len(prs), len(branches))
		}
		// What a host lacks (hostCaps) is left out, with a warning for
		// a team: the PR is opened and decorated with the rest.
		caps := w.host.caps()
		wantMerge := caps.draftAutoMerge
		var wantTeams, wantLabels []string
		if caps.teamReviewers {
			wantTeams = []string{"platform"}
		}
		if caps.labels {
			wantLabels = []string{"dependencies", "imagebot"}
		}
		for b, pr := range prs {
			if !pr.Draft || pr.AutoMerge != wantMerge {
				t.Errorf("%s: draft %v, auto-merge %v", b, pr.Draft, pr.AutoMerge)
			}
			if !slices.Equal(pr.Labels, wantLabels) {
				t.Errorf("%s: labels %q", b, pr.Labels)
			}
			if !slices.Equal(pr.Reviewers, []string{"jane"}) || !slices.Equal(pr.TeamReviewers, wantTeams) {
				t.Errorf("%s: reviewers %q, teams %q", b, pr.Reviewers, pr.TeamReviewers)
			}
		}
		before := w.counters()
		res := w.runClean(t, decorated)
		if after := w.counters(); after != before {
			t.Errorf("rerun of drafts wrote: %+v -> %+v", before, after)
		}
		diffSets(t, "unchanged", res.Unchanged, branches)

		// A newer version retitles the draft, which stays a draft.
		w.pushTag(t, "docker.io/library/node", "22.2.0")
		w.runClean(t, decorated)
		if pr := w.openPRs()[node]; !pr.Draft || !slices.Contains([]string{"WIP: Update node to 22.2.0", "Draft: Update node to 22.2.0", "Update node to 22.2.0"}, pr.Title) {
			t.Errorf("node PR after a newer version: draft %v, title %q", pr.Draft, pr.Title)
		}
	})
}
