package gitops

import (
	"context"
	"time"

	"github.com/google/go-github/v60/github"
	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

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
		return pages < forge.RecentPages
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
		return pages < forge.RecentPages
	})
	return out, err
}
