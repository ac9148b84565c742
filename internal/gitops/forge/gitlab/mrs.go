package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// gitlabPerPage is GitLab's largest page: every listing asks for it.
const gitlabPerPage = 100

// GitLab's merge request states, as its API writes them.
const (
	mrOpened = "opened"
	mrLocked = "locked" // open, while GitLab works on it
	mrMerged = "merged"
	mrAll    = "all"
)

// fromMR is a merge request as the lifecycle reads it: "opened" and
// "locked" are open, "closed" and "merged" closed (Merged for the latter),
// and the title without the draft prefix, which GitLab keeps there.
func (l *lab) fromMR(mr *gitlab.BasicMergeRequest) *forge.Change {
	c := &forge.Change{
		Number: int(mr.IID), URL: mr.WebURL, Title: mr.Title, Body: mr.Description,
		Head: mr.SourceBranch, OwnBranch: mr.SourceProjectID != 0 && mr.SourceProjectID == mr.TargetProjectID, Base: mr.TargetBranch,
		State: "closed", Merged: mr.State == mrMerged, Labels: mr.Labels,
	}
	if mr.CreatedAt != nil {
		c.Created = *mr.CreatedAt
	}
	if mr.Author != nil {
		c.Author = mr.Author.Username
	}
	if mr.State == mrOpened || mr.State == mrLocked {
		c.State = "open"
	}
	if t, ok := cutDraft(mr.Title); ok || mr.Draft {
		c.Title = t
		l.drafts[c.Number] = true
	}
	return c
}

// cutDraft removes the prefixes GitLab reads as draft: "Draft:",
// "[Draft]" and "(Draft)", in any case.
func cutDraft(title string) (string, bool) {
	lower := strings.ToLower(title)
	for _, p := range []string{"draft:", "[draft]", "(draft)"} {
		if strings.HasPrefix(lower, p) {
			return strings.TrimSpace(title[len(p):]), true
		}
	}
	return title, false
}

// mrPages pages through a merge request listing until each returns false
// or the last page (forge.Pages: a next page that points back is an
// error, not a loop).
func (l *lab) mrPages(ctx context.Context, opts *gitlab.ListProjectMergeRequestsOptions, each func([]*gitlab.BasicMergeRequest, *gitlab.Response) bool) error {
	opts.PerPage = gitlabPerPage
	opts.OrderBy, opts.Sort = gitlab.Ptr("created_at"), gitlab.Ptr("asc")
	what := "list " + *opts.State + " merge requests"
	return forge.Pages(what, 0, func(page int) (int, error) {
		opts.Page = int64(page)
		mrs, resp, err := l.gl.MergeRequests.ListProjectMergeRequests(l.project, opts, gitlab.WithContext(ctx))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, glErr(err))
		}
		if !each(mrs, resp) {
			return 0, nil
		}
		return int(resp.NextPage), nil
	})
}

// Changes lists the merge requests q keeps, every page: "open" is
// GitLab's "opened"; "closed" is its closed and merged ones, read from
// "all" in one listing rather than two. GitLab filters by source and
// target branch and by author (author_username); a prefix and a fork's
// merge requests are dropped page by page.
func (l *lab) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	var out []*forge.Change
	err := l.mrPages(ctx, l.listing(q), func(mrs []*gitlab.BasicMergeRequest, _ *gitlab.Response) bool {
		out = l.appendKept(out, mrs, q, nil)
		return true
	})
	return out, err
}

// listing is the listing's options that GitLab filters q by.
func (l *lab) listing(q forge.Query) *gitlab.ListProjectMergeRequestsOptions {
	opts := &gitlab.ListProjectMergeRequestsOptions{State: gitlab.Ptr(mrAll)}
	if q.State == "open" {
		opts.State = gitlab.Ptr(mrOpened)
	}
	if q.Head != "" {
		opts.SourceBranch = gitlab.Ptr(q.Head)
	}
	if q.Base != "" {
		opts.TargetBranch = gitlab.Ptr(q.Base)
	}
	if q.Author != "" {
		opts.AuthorUsername = gitlab.Ptr(q.Author)
	}
	return opts
}

// appendKept appends the merge requests q keeps whose source branch want
// holds (nil: any); the others, and their descriptions, go with their
// page. A draft's prefix is remembered only for those kept.
func (l *lab) appendKept(out []*forge.Change, mrs []*gitlab.BasicMergeRequest, q forge.Query, want map[string]bool) []*forge.Change {
	for _, mr := range mrs {
		if want != nil && !want[mr.SourceBranch] {
			continue
		}
		c := &forge.Change{Head: mr.SourceBranch, Base: mr.TargetBranch, OwnBranch: mr.SourceProjectID != 0 && mr.SourceProjectID == mr.TargetProjectID, State: "closed"}
		if mr.Author != nil {
			c.Author = mr.Author.Username
		}
		if mr.State == mrOpened || mr.State == mrLocked {
			c.State = "open"
		}
		if q.Keeps(c) {
			out = append(out, l.fromMR(mr))
		}
	}
	return out
}

// ClosedChanges is the closed and merged merge requests of branches that
// by keeps, at the lower of two costs, as on GitHub: one filtered listing
// per branch, or one listing of every merge request when its pages
// (X-Total-Pages) are fewer than the branches.
func (l *lab) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	q := forge.Query{State: "closed", Base: by.Base, Author: by.Author}
	if len(branches) > 1 {
		want := map[string]bool{}
		for _, b := range branches {
			want[b] = true
		}
		whole, first := false, true
		var kept []*forge.Change
		err := l.mrPages(ctx, l.listing(forge.Query{Base: q.Base, Author: q.Author}), func(mrs []*gitlab.BasicMergeRequest, resp *gitlab.Response) bool {
			if first {
				whole = resp.NextPage == 0 || (resp.TotalPages > 0 && int(resp.TotalPages)-1 <= len(branches))
				first = false
			}
			if !whole {
				return false
			}
			kept = l.appendKept(kept, mrs, q, want)
			return true
		})
		for _, c := range kept {
			out[c.Head] = append(out[c.Head], c)
		}
		if err != nil || whole {
			return out, err
		}
	}
	for _, b := range branches {
		q.Head = b
		cs, err := l.Changes(ctx, q)
		if err != nil {
			return nil, err
		}
		out[b] = cs
	}
	return out, nil
}

// CreateChange opens a merge request; a draft's title starts "Draft: ".
// GitLab's 409 (another open merge request from the branch: an earlier
// run raced us) returns that one instead.
func (l *lab) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	title := c.Title
	if c.Draft {
		title = gitlabDraft + title
	}
	mr, _, err := l.gl.MergeRequests.CreateMergeRequest(l.project, &gitlab.CreateMergeRequestOptions{
		Title: &title, Description: &c.Body, SourceBranch: &c.Head, TargetBranch: &c.Base,
	}, gitlab.WithContext(ctx))
	if err == nil {
		ch := l.fromMR(&mr.BasicMergeRequest)
		return ch, true, nil
	}
	if glStatus(err) == http.StatusConflict {
		// Whoever opened it: the lifecycle tells the bot's from others'.
		open, lerr := l.Changes(ctx, forge.Query{State: "open", Head: c.Head, Base: c.Base})
		if len(open) > 0 {
			return open[0], false, nil
		}
		if lerr != nil {
			err = fmt.Errorf("%w (and then: %v)", err, lerr)
		}
	}
	return nil, false, fmt.Errorf("open merge request for %s: %w", c.Head, glErr(err))
}

// EditChange retitles (keeping a draft a draft), rewrites the description,
// or closes (state_event=close).
func (l *lab) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	opts := &gitlab.UpdateMergeRequestOptions{Description: e.Body}
	if e.Title != nil {
		t := *e.Title
		if l.drafts[n] {
			t = gitlabDraft + t
		}
		opts.Title = &t
	}
	if e.Close {
		opts.StateEvent = gitlab.Ptr("close")
	}
	if _, _, err := l.gl.MergeRequests.UpdateMergeRequest(l.project, int64(n), opts, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("edit merge request !%d: %w", n, glErr(err))
	}
	return nil
}

// Label adds labels: GitLab creates the project's missing ones itself.
func (l *lab) Label(ctx context.Context, n int, labels []string) error {
	add := gitlab.LabelOptions(labels)
	if _, _, err := l.gl.MergeRequests.UpdateMergeRequest(l.project, int64(n), &gitlab.UpdateMergeRequestOptions{AddLabels: &add}, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("label merge request !%d: %w", n, glErr(err))
	}
	return nil
}

// RequestReviewers makes people reviewers: GitLab takes user IDs, one
// lookup per login. GitLab has no group reviewers: an "owner/team" is
// left out, and the log says so.
func (l *lab) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	var ids []int64
	for _, r := range reviewers {
		if strings.Contains(r, "/") {
			l.log.Warn("GitLab has no group reviewers: name people", "reviewer", r, "number", n)
			continue
		}
		users, _, err := l.gl.Users.ListUsers(&gitlab.ListUsersOptions{Username: gitlab.Ptr(r)}, gitlab.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("look up reviewer %s: %w", r, glErr(err))
		}
		if len(users) == 0 {
			return fmt.Errorf("request reviewers on !%d: GitLab has no user %q", n, r)
		}
		ids = append(ids, users[0].ID)
	}
	if len(ids) == 0 {
		return nil
	}
	if _, _, err := l.gl.MergeRequests.UpdateMergeRequest(l.project, int64(n), &gitlab.UpdateMergeRequestOptions{ReviewerIDs: &ids}, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("request reviewers on !%d: %w", n, glErr(err))
	}
	return nil
}

// autoMergeTries and autoMergeWait: right after a merge request is made,
// GitLab is still working out whether it can merge, and answers 405 to a
// merge until it knows; Renovate retries so, and so does imagebot.
const (
	autoMergeTries = 5
	autoMergeWait  = 500 * time.Millisecond
)

// EnableAutoMerge sets the merge request to merge when its pipeline
// succeeds (auto_merge; merge_when_pipeline_succeeds on GitLab before
// 17.11), retrying GitLab's 405 with a doubling wait in the run's clock.
func (l *lab) EnableAutoMerge(ctx context.Context, c *forge.Change) error {
	//lint:ignore SA1019 GitLab before 17.11 reads merge_when_pipeline_succeeds alone
	opts := &gitlab.AcceptMergeRequestOptions{AutoMerge: gitlab.Ptr(true), MergeWhenPipelineSucceeds: gitlab.Ptr(true)}
	wait := autoMergeWait
	var err error
	for try := 1; ; try++ {
		_, _, err = l.gl.MergeRequests.AcceptMergeRequest(l.project, int64(c.Number), opts, gitlab.WithContext(ctx))
		if glStatus(err) != http.StatusMethodNotAllowed || try == autoMergeTries {
			break
		}
		if serr := l.clock.Sleep(ctx, wait); serr != nil {
			return serr
		}
		wait *= 2
	}
	if glStatus(err) == http.StatusMethodNotAllowed {
		return fmt.Errorf("enable auto-merge on !%d: GitLab still answers 405 after %d tries (the merge request is not mergeable yet, or the project does not allow it): %w", c.Number, autoMergeTries, err)
	}
	if err != nil {
		return fmt.Errorf("enable auto-merge on !%d: %w", c.Number, glErr(err))
	}
	return nil
}

// Comment adds a note to the merge request.
func (l *lab) Comment(ctx context.Context, n int, text string) error {
	if _, _, err := l.gl.Notes.CreateMergeRequestNote(l.project, int64(n), &gitlab.CreateMergeRequestNoteOptions{Body: &text}, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("comment on !%d: %w", n, glErr(err))
	}
	return nil
}

// Commented reports whether a note of the bot's (not GitLab's own system
// notes) on the merge request contains mark.
func (l *lab) Commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	opts := &gitlab.ListMergeRequestNotesOptions{ListOptions: gitlab.ListOptions{PerPage: gitlabPerPage}}
	found := false
	err := forge.Pages(fmt.Sprintf("list notes of !%d", n), 0, func(page int) (int, error) {
		opts.Page = int64(page)
		notes, resp, err := l.gl.Notes.ListMergeRequestNotes(l.project, int64(n), opts, gitlab.WithContext(ctx))
		if err != nil {
			return 0, fmt.Errorf("list notes of !%d: %w", n, glErr(err))
		}
		for _, note := range notes {
			if !note.System && strings.Contains(note.Body, mark) && by(note.Author.Username) {
				found = true
				return 0, nil
			}
		}
		return int(resp.NextPage), nil
	})
	return found, err
}
