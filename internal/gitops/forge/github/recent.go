package github

import (
	"context"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// RecentChanges lists the pull requests opened at or after since, newest
// first (GitHub sorts by creation, newest first, when asked).
func (h *hub) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	var out []*forge.Change
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
		return pages < forge.RecentPages
	})
	return out, err
}
