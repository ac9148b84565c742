package gitops

import (
	"context"
	"fmt"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-github/v60/github"
	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// maxRecentPages bounds RecentChanges: an hour's pull requests fit in a
// page on any repository imagebot serves; a host that keeps answering
// with newer ones is not read to its end.
const maxRecentPages = 10

// RecentChanges lists the pull requests opened at or after since, newest
// first (GitHub sorts by creation, newest first, when asked).
func (h *hub) RecentChanges(ctx context.Context, since time.Time) ([]*Change, error) {
	var out []*Change
	pages := 0
	err := h.listPages(ctx, &github.PullRequestListOptions{State: "all", Sort: "created", Direction: "desc"}, func(prs []*github.PullRequest, _ *github.Response) bool {
		for _, pr := range prs {
			c := fromPull(pr)
			if c.Created.Before(since) {
				return false
			}
			out = append(out, c)
		}
		pages++
		return pages < maxRecentPages
	})
	return out, err
}

// RecentChanges lists the merge requests opened at or after since: GitLab
// filters by creation time itself.
func (l *lab) RecentChanges(ctx context.Context, since time.Time) ([]*Change, error) {
	opts := &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr(mrAll), CreatedAfter: gitlab.Ptr(since)}
	var out []*Change
	pages := 0
	err := l.mrPages(ctx, opts, func(mrs []*gitlab.BasicMergeRequest, _ *gitlab.Response) bool {
		for _, mr := range mrs {
			// Checked here too: created_after is a filter a proxy or an
			// older GitLab may drop.
			if c := l.fromMR(mr); !c.Created.Before(since) {
				out = append(out, c)
			}
		}
		pages++
		return pages < maxRecentPages
	})
	return out, err
}

// RecentChanges lists the pull requests opened at or after since. Gitea
// lists the newest first unless asked otherwise, and has no filter by
// creation time: the pages are read until an older one.
func (g *tea) RecentChanges(ctx context.Context, since time.Time) ([]*Change, error) {
	c := g.client(ctx)
	opts := gitea.ListPullRequestsOptions{State: gitea.StateAll, ListOptions: gitea.ListOptions{PageSize: giteaPerPage}}
	var out []*Change
	err := forge.Pages("list recent pull requests", maxRecentPages, func(page int) (int, error) {
		opts.Page = page
		prs, resp, err := c.ListRepoPullRequests(g.owner, g.name, opts)
		if err != nil {
			return 0, fmt.Errorf("list recent pull requests: %w", g.teaErr(resp, err))
		}
		for _, pr := range prs {
			ch := g.fromTeaPull(pr)
			if ch.Created.Before(since) {
				return 0, nil
			}
			out = append(out, ch)
		}
		return resp.NextPage, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
