package gitops

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// GitHub's largest page: every listing asks for it.
const perPage = 100

// listPages pages through a pull request listing until each returns false
// or the last page; a Link that points back is an error, not a loop.
func (h *hub) listPages(ctx context.Context, opts *github.PullRequestListOptions, each func([]*github.PullRequest, *github.Response) bool) error {
	opts.PerPage = perPage
	for page := 1; ; {
		opts.Page = page
		prs, resp, err := h.gh.PullRequests.List(ctx, h.owner, h.name, opts)
		if err != nil {
			return fmt.Errorf("list %s pull requests: %w", opts.State, ghErr(err))
		}
		if !each(prs, resp) || resp.NextPage == 0 {
			return nil
		}
		if resp.NextPage <= page {
			return fmt.Errorf("list %s pull requests: page %d links back to page %d", opts.State, page, resp.NextPage)
		}
		page = resp.NextPage
	}
}

// pulls lists pull requests, every page. head filters by branch.
func (h *hub) pulls(ctx context.Context, state, head string) ([]*github.PullRequest, error) {
	opts := &github.PullRequestListOptions{State: state}
	if head != "" {
		// GitHub ignores a head filter without the owner.
		opts.Head = h.owner + ":" + head
	}
	var all []*github.PullRequest
	err := h.listPages(ctx, opts, func(prs []*github.PullRequest, _ *github.Response) bool {
		all = append(all, prs...)
		return true
	})
	return all, err
}

// Changes lists pull requests, every page; head filters by branch.
func (h *hub) Changes(ctx context.Context, state, head string) ([]*Change, error) {
	prs, err := h.pulls(ctx, state, head)
	return changes(prs), err
}

func changes(prs []*github.PullRequest) []*Change {
	var out []*Change
	for _, pr := range prs {
		out = append(out, fromPull(pr))
	}
	return out
}

// ownChanges keeps the PRs whose head branch is in the repository itself.
func ownChanges(prs []*github.PullRequest) []*Change {
	var out []*Change
	for _, pr := range prs {
		if ownBranch(pr) {
			out = append(out, fromPull(pr))
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
func (h *hub) ClosedChanges(ctx context.Context, branches []string) (map[string][]*Change, error) {
	out := map[string][]*Change{}
	if len(branches) == 0 {
		return out, nil
	}
	if len(branches) > 1 {
		want := map[string]bool{}
		for _, b := range branches {
			want[b] = true
		}
		whole, first := false, true
		err := h.listPages(ctx, &github.PullRequestListOptions{State: "closed"}, func(prs []*github.PullRequest, resp *github.Response) bool {
			if first {
				whole = resp.NextPage == 0 || resp.LastPage-1 <= len(branches)
				first = false
			}
			if !whole {
				return false
			}
			for _, pr := range prs {
				if b := pr.GetHead().GetRef(); want[b] && ownBranch(pr) {
					out[b] = append(out[b], fromPull(pr))
				}
			}
			return true
		})
		if err != nil || whole {
			return out, err
		}
	}
	for _, b := range branches {
		prs, err := h.pulls(ctx, "closed", b)
		if err != nil {
			return nil, err
		}
		out[b] = ownChanges(prs)
	}
	return out, nil
}
