package gitea

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// issuesOff reports whether the repository, as Repository read it, has
// no issues of its own: turned off, or sent to an external tracker.
func (g *tea) issuesOff() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.repo != nil && (!g.repo.HasIssues || g.repo.ExternalTracker != nil)
}

// FindIssue lists creator's issues (type=issues: Gitea lists pull
// requests as issues too), a page of 50 at a time, for forge.IssuePages at
// most. Gitea lists newest first and cannot be asked otherwise: each page
// is handed to pick oldest first. Issues turned off are known from the
// repository already, at no cost.
func (g *tea) FindIssue(ctx context.Context, creator string, pick func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	if g.issuesOff() {
		return nil, forge.ErrIssuesOff
	}
	c := g.client(ctx)
	opts := gitea.ListIssueOption{Type: gitea.IssueTypeIssue, State: gitea.StateAll, CreatedBy: creator,
		ListOptions: gitea.ListOptions{Page: 1, PageSize: giteaPerPage}}
	var found *forge.Issue
	err := forge.Pages("list issues by "+creator, forge.IssuePages, func(page int) (int, error) {
		opts.Page = page
		issues, resp, err := c.ListRepoIssues(g.owner, g.name, opts)
		if err != nil {
			return 0, g.teaErr(resp, err)
		}
		var list []*forge.Issue
		for _, is := range issues {
			if is.PullRequest == nil {
				list = append(list, fromTeaIssue(is))
			}
		}
		slices.SortStableFunc(list, func(a, b *forge.Issue) int { return a.Created.Compare(b.Created) })
		if found = pick(list); found != nil {
			return 0, nil
		}
		return resp.NextPage, nil
	})
	return found, err
}

func fromTeaIssue(is *gitea.Issue) *forge.Issue {
	out := &forge.Issue{Number: int(is.Index), URL: is.HTMLURL, Title: is.Title, Body: is.Body, Created: is.Created}
	if is.Poster != nil {
		out.Author = is.Poster.UserName
	}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out
}

// CreateIssue opens an issue with labels (by ID, created when missing).
// A 404 from a repository without issues is ErrIssuesOff.
func (g *tea) CreateIssue(ctx context.Context, title, body string, labels []string) (*forge.Issue, error) {
	if g.issuesOff() {
		return nil, forge.ErrIssuesOff
	}
	ids, err := g.labelIDs(ctx, labels)
	if err != nil {
		return nil, err
	}
	is, resp, err := g.client(ctx).CreateIssue(g.owner, g.name, gitea.CreateIssueOption{Title: title, Body: body, Labels: ids})
	if err != nil {
		err = g.teaErr(resp, err)
		if teaStatus(err) == http.StatusNotFound {
			return nil, fmt.Errorf("%w: %w", forge.ErrIssuesOff, err)
		}
		return nil, err
	}
	return fromTeaIssue(is), nil
}

func (g *tea) EditIssue(ctx context.Context, n int, body string) error {
	_, resp, err := g.client(ctx).EditIssue(g.owner, g.name, int64(n), gitea.EditIssueOption{Body: &body})
	return g.teaErr(resp, err)
}

// Statuses is the newest state of each commit status context on ref:
// CI's, Flux's, and Gitea's and Forgejo's Actions jobs ("workflow / job
// (event)"), which report as commit statuses. The combined status gives
// each context's newest, one page of them (the SDK asks no page size);
// when the server says there are more, every status is paged through and
// each context's newest (highest ID) kept. Gitea's states are GitHub's
// words ("success", "pending", "failure", "error"), with "warning" and
// "skipped" besides, which are not successes.
func (g *tea) Statuses(ctx context.Context, ref string) (map[string]string, error) {
	c := g.client(ctx)
	cs, resp, err := c.GetCombinedStatus(g.owner, g.name, ref)
	if err != nil {
		return nil, fmt.Errorf("statuses of %s: %w", ref, g.teaErr(resp, err))
	}
	out := map[string]string{}
	if cs.TotalCount <= len(cs.Statuses) {
		for _, st := range cs.Statuses {
			out[st.Context] = string(st.State)
		}
		return out, nil
	}
	newest := map[string]int64{}
	opts := gitea.ListStatusesOption{ListOptions: gitea.ListOptions{Page: 1, PageSize: giteaPerPage}}
	err = forge.Pages("statuses of "+ref, maxGiteaPages, func(page int) (int, error) {
		opts.Page = page
		sts, resp, err := c.ListStatuses(g.owner, g.name, ref, opts)
		if err != nil {
			return 0, fmt.Errorf("statuses of %s: %w", ref, g.teaErr(resp, err))
		}
		for _, st := range sts {
			if id, seen := newest[st.Context]; !seen || st.ID > id {
				newest[st.Context], out[st.Context] = st.ID, string(st.State)
			}
		}
		return resp.NextPage, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
