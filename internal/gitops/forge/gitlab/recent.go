package gitlab

import (
	"context"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// RecentChanges lists the merge requests opened at or after since: GitLab
// filters by creation time itself.
func (l *lab) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	opts := &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr(mrAll), CreatedAfter: gitlab.Ptr(since)}
	var out []*forge.Change
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
