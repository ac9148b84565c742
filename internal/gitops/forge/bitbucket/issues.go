package bitbucket

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// issuePage is the page of issues read looking for the dashboard.
const issuePage = 50

// issuesOff reports whether the repository, as Repository read it, has
// its issue tracker off (Bitbucket's default for a new repository).
func (b *cloud) issuesOff() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.repo != nil && !b.repo.HasIssues
}

// offErr is err as ErrIssuesOff when Bitbucket answered 404 for the
// tracker (turned off since Repository read it).
func offErr(err error) error {
	if status(err) == http.StatusNotFound {
		return fmt.Errorf("%w: %w", forge.ErrIssuesOff, err)
	}
	return err
}

type bbIssue struct {
	ID      int    `json:"id"`
	Title   string `json:"title"`
	Content struct {
		Raw string `json:"raw"`
	} `json:"content"`
	Reporter bbUser    `json:"reporter"`
	Created  time.Time `json:"created_on"`
	Links    links     `json:"links"`
}

func (is *bbIssue) issue() *forge.Issue {
	return &forge.Issue{Number: is.ID, URL: is.Links.HTML.Href, Title: is.Title, Body: is.Content.Raw,
		Author: is.Reporter.login(), Created: is.Created}
}

// FindIssue lists creator's issues oldest first (Bitbucket filters by
// reporter and sorts), a page at a time, for forge.IssuePages at most. A
// tracker that is off is known from the repository already, at no cost.
func (b *cloud) FindIssue(ctx context.Context, creator string, pick func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	if b.issuesOff() {
		return nil, forge.ErrIssuesOff
	}
	query := url.Values{"q": {field("reporter", creator) + " = " + quote(creator)}, "sort": {"created_on"}}
	var found *forge.Issue
	err := b.api.pages(ctx, "list issues by "+creator, b.repoPath("issues"), query, issuePage, forge.IssuePages,
		func(values []json.RawMessage) (bool, error) {
			var list []*forge.Issue
			for _, raw := range values {
				var is bbIssue
				if err := json.Unmarshal(raw, &is); err != nil {
					return false, err
				}
				list = append(list, is.issue())
			}
			found = pick(list)
			return found == nil, nil
		})
	return found, offErr(err)
}

// CreateIssue opens a task. Bitbucket's issues have no labels: labels are
// not kept.
func (b *cloud) CreateIssue(ctx context.Context, title, body string, _ []string) (*forge.Issue, error) {
	if b.issuesOff() {
		return nil, forge.ErrIssuesOff
	}
	in := map[string]any{"title": title, "kind": "task", "content": map[string]string{"raw": body}}
	var is bbIssue
	if err := b.api.do(ctx, http.MethodPost, b.repoPath("issues"), nil, in, &is); err != nil {
		return nil, fmt.Errorf("open issue: %w", offErr(err))
	}
	return is.issue(), nil
}

// EditIssue replaces the issue's content, its title left as it is.
func (b *cloud) EditIssue(ctx context.Context, n int, body string) error {
	in := map[string]any{"content": map[string]string{"raw": body}}
	if err := b.api.do(ctx, http.MethodPut, b.repoPath("issues", fmt.Sprint(n)), nil, in, nil); err != nil {
		return fmt.Errorf("edit issue #%d: %w", n, offErr(err))
	}
	return nil
}
