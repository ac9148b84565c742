package gitea

import (
	"context"
	"fmt"
	"time"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// RecentChanges lists the pull requests opened at or after since. Gitea
// lists the newest first unless asked otherwise, and has no filter by
// creation time: the pages are read until an older one.
func (g *tea) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	c := g.client(ctx)
	opts := gitea.ListPullRequestsOptions{State: gitea.StateAll, ListOptions: gitea.ListOptions{PageSize: giteaPerPage}}
	var out []*forge.Change
	err := forge.Pages("list recent pull requests", forge.RecentPages, func(page int) (int, error) {
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
