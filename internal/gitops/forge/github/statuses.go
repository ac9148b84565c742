package github

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Statuses is the state of every commit status context and check run on
// ref, by name. The combined status gives each context's newest status;
// the check runs, each name's newest run, read as its conclusion once
// completed and as its status (queued, in_progress) before. A name
// reported both ways counts as successful only if both are.
func (h *hub) Statuses(ctx context.Context, ref string) (map[string]string, error) {
	out := map[string]string{}
	set := func(name, state string) {
		if prev, ok := out[name]; !ok || prev == "success" {
			out[name] = state
		}
	}
	opts := &github.ListOptions{PerPage: perPage}
	err := forge.Pages("statuses of "+ref, forge.StatusPages, func(page int) (int, error) {
		opts.Page = page
		cs, resp, err := h.gh.Repositories.GetCombinedStatus(ctx, h.owner, h.name, ref, opts)
		if err != nil {
			return 0, fmt.Errorf("statuses of %s: %w", ref, ghErr(err))
		}
		for _, st := range cs.Statuses {
			set(st.GetContext(), st.GetState())
		}
		return resp.NextPage, nil
	})
	if err != nil {
		return nil, err
	}
	copts := &github.ListCheckRunsOptions{Filter: github.String("latest"), ListOptions: github.ListOptions{PerPage: perPage}}
	err = forge.Pages("check runs of "+ref, forge.StatusPages, func(page int) (int, error) {
		copts.Page = page
		runs, resp, err := h.gh.Checks.ListCheckRunsForRef(ctx, h.owner, h.name, ref, copts)
		if err != nil {
			return 0, fmt.Errorf("check runs of %s: %w", ref, ghErr(err))
		}
		for _, r := range runs.CheckRuns {
			state := r.GetStatus()
			if state == "completed" {
				state = r.GetConclusion()
			}
			set(r.GetName(), state)
		}
		return resp.NextPage, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
