package github

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// GitHub's largest page: every listing asks for it.
const perPage = 100

// listPages pages through a pull request listing until each returns false
// or the last page (forge.Pages: a Link that points back is an error, not
// a loop).
func (h *hub) listPages(ctx context.Context, opts *github.PullRequestListOptions, each func([]*github.PullRequest, *github.Response) bool) error {
	opts.PerPage = perPage
	what := "list " + opts.State + " pull requests"
	return forge.Pages(what, 0, func(page int) (int, error) {
		opts.Page = page
		prs, resp, err := h.gh.PullRequests.List(ctx, h.owner, h.name, opts)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, ghErr(err))
		}
		if !each(prs, resp) {
			return 0, nil
		}
		return resp.NextPage, nil
	})
}

// Changes lists the pull requests q keeps, every page. GitHub filters by
// state, base and an exact head; author and prefix are read page by page
// and the rest dropped before it is kept.
func (h *hub) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	opts := &github.PullRequestListOptions{State: q.State, Base: q.Base}
	if opts.State == "" {
		opts.State = "all"
	}
	if q.Head != "" {
		// GitHub ignores a head filter without the owner.
		opts.Head = h.owner + ":" + q.Head
	}
	var out []*forge.Change
	err := h.listPages(ctx, opts, func(prs []*github.PullRequest, _ *github.Response) bool {
		out = appendKept(out, prs, q)
		return true
	})
	return out, err
}

// appendKept appends the pull requests q keeps; the others, and their
// bodies, go with their page.
func appendKept(out []*forge.Change, prs []*github.PullRequest, q forge.Query) []*forge.Change {
	for _, pr := range prs {
		if c := fromPull(pr); q.Keeps(c) {
			out = append(out, c)
		}
	}
	return out
}

// ClosedChanges is the closed pull requests of branches, by branch, at the
// lower of two costs: one filtered listing per branch, or one listing of
// every closed PR of the repository. Closed PRs pile up over a repository's
// life (every merged one stays), so listing them all is worth it only when
// it takes fewer pages than there are branches to ask about; the first
// page's Link says how many there are. A fork's PR from a branch of the
// same name is no PR of that branch.
func (h *hub) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	if len(branches) > 1 {
		want := map[string]bool{}
		for _, b := range branches {
			want[b] = true
		}
		whole, first := false, true
		q := forge.Query{State: "closed", Base: by.Base, Author: by.Author}
		err := h.listPages(ctx, &github.PullRequestListOptions{State: "closed", Base: by.Base}, func(prs []*github.PullRequest, resp *github.Response) bool {
			if first {
				whole = resp.NextPage == 0 || resp.LastPage-1 <= len(branches)
				first = false
			}
			if !whole {
				return false
			}
			for _, pr := range prs {
				if c := fromPull(pr); want[c.Head] && q.Keeps(c) {
					out[c.Head] = append(out[c.Head], c)
				}
			}
			return true
		})
		if err != nil || whole {
			return out, err
		}
	}
	for _, b := range branches {
		cs, err := h.Changes(ctx, forge.Query{State: "closed", Head: b, Base: by.Base, Author: by.Author})
		if err != nil {
			return nil, err
		}
		out[b] = cs
	}
	return out, nil
}
