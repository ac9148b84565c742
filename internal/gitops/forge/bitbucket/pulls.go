package bitbucket

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// prPage is the largest page of pull requests Bitbucket serves.
const prPage = 50

// commentPage is the largest page of comments.
const commentPage = 100

// maxCommentPages bounds one pull request's comments read: 1,000.
const maxCommentPages = 10

type bbEnd struct {
	Branch struct {
		Name string `json:"name"`
	} `json:"branch"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

type bbPR struct {
	ID          int       `json:"id"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"` // OPEN, MERGED, DECLINED, SUPERSEDED
	Author      bbUser    `json:"author"`
	Source      bbEnd     `json:"source"`
	Destination bbEnd     `json:"destination"`
	Reviewers   []bbUser  `json:"reviewers"`
	Created     time.Time `json:"created_on"`
	Links       links     `json:"links"`
}

// change is pr as the lifecycle reads it: DECLINED and SUPERSEDED are
// closed and not merged.
func (pr *bbPR) change() *forge.Change {
	c := &forge.Change{Number: pr.ID, URL: pr.Links.HTML.Href, Title: pr.Title, Body: pr.Description,
		Author: pr.Author.login(), Head: pr.Source.Branch.Name, Base: pr.Destination.Branch.Name,
		State: "closed", Merged: pr.State == "MERGED", Created: pr.Created,
		// A fork's source is its own repository; a deleted fork's
		// has none.
		OwnBranch: pr.Source.Repository.FullName != "" &&
			strings.EqualFold(pr.Source.Repository.FullName, pr.Destination.Repository.FullName)}
	if pr.State == "OPEN" {
		c.State = "open"
	}
	return c
}

// states are Bitbucket's states a Query's State asks for.
func states(state string) []string {
	switch state {
	case "open":
		return []string{"OPEN"}
	case "closed":
		return []string{"MERGED", "DECLINED", "SUPERSEDED"}
	}
	return []string{"OPEN", "MERGED", "DECLINED", "SUPERSEDED"}
}

// pulls lists the pull requests q keeps, oldest first, calling each until
// it returns false. Bitbucket filters by state, and with q by source and
// destination branch and author; a prefix is asked as "contains" (~), the
// closest Bitbucket has, and checked by Keeps with the fork test.
func (b *cloud) pulls(ctx context.Context, q forge.Query, each func(*bbPR) bool) error {
	query := url.Values{"state": states(q.State), "sort": {"id"}}
	var terms []string
	switch {
	case q.Head != "":
		terms = append(terms, "source.branch.name = "+quote(q.Head))
	case q.Prefix != "":
		terms = append(terms, "source.branch.name ~ "+quote(q.Prefix))
	}
	if q.Base != "" {
		terms = append(terms, "destination.branch.name = "+quote(q.Base))
	}
	if q.Author != "" {
		terms = append(terms, field("author", q.Author)+" = "+quote(q.Author))
	}
	if len(terms) > 0 {
		query.Set("q", strings.Join(terms, " AND "))
	}
	what := "list " + strings.ToLower(strings.Join(query["state"], ",")) + " pull requests"
	return b.api.list(ctx, what, b.repoPath("pullrequests"), query, prPage, 0, func(raw []byte) (bool, error) {
		var pr bbPR
		if err := json.Unmarshal(raw, &pr); err != nil {
			return false, err
		}
		if !q.Keeps(pr.change()) {
			return true, nil
		}
		return each(&pr), nil
	})
}

func (b *cloud) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	var out []*forge.Change
	err := b.pulls(ctx, q, func(pr *bbPR) bool {
		out = append(out, pr.change())
		return true
	})
	return out, err
}

// ClosedChanges is one listing of the closed pull requests by's base and
// author, kept for branches.
func (b *cloud) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	err := b.pulls(ctx, forge.Query{State: "closed", Base: by.Base, Author: by.Author}, func(pr *bbPR) bool {
		if c := pr.change(); slices.Contains(branches, c.Head) {
			out[c.Head] = append(out[c.Head], c)
		}
		return true
	})
	return out, err
}

// RecentChanges asks Bitbucket for the pull requests created since, newest
// first: usually one page.
func (b *cloud) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	query := url.Values{"state": states("all"), "sort": {"-created_on"},
		"q": {"created_on >= " + quote(since.UTC().Format(time.RFC3339))}}
	var out []*forge.Change
	err := b.api.list(ctx, "list recent pull requests", b.repoPath("pullrequests"), query, prPage, forge.RecentPages,
		func(raw []byte) (bool, error) {
			var pr bbPR
			if err := json.Unmarshal(raw, &pr); err != nil {
				return false, err
			}
			c := pr.change()
			if c.Created.Before(since) {
				return false, nil
			}
			out = append(out, c)
			return true, nil
		})
	return out, err
}

type endRef struct {
	Branch struct {
		Name string `json:"name"`
	} `json:"branch"`
}

func branchRef(name string) endRef {
	var e endRef
	e.Branch.Name = name
	return e
}

// CreateChange opens a pull request with the repository's effective
// default reviewers, which Bitbucket's API does not add by itself. One
// already open for the branch (a 400 or 409, an earlier run's) is
// returned, not created.
func (b *cloud) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	reviewers, err := b.defaultReviewers(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, err)
	}
	body := map[string]any{"title": c.Title, "description": c.Body, "source": branchRef(c.Head),
		"destination": branchRef(c.Base), "draft": c.Draft, "close_source_branch": false, "reviewers": reviewers}
	var pr bbPR
	err = b.api.do(ctx, http.MethodPost, b.repoPath("pullrequests"), nil, body, &pr)
	if err == nil {
		return pr.change(), true, nil
	}
	if s := status(err); s == http.StatusBadRequest || s == http.StatusConflict {
		var open *forge.Change
		lerr := b.pulls(ctx, forge.Query{State: "open", Head: c.Head, Base: c.Base}, func(pr *bbPR) bool {
			open = pr.change()
			return false
		})
		if lerr == nil && open != nil {
			return open, false, nil
		}
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, err)
}

// defaultReviewers are the repository's and its project's default
// reviewers, but the token's own account, which may not review its
// pull requests. The bot's account is asked only when there are any.
func (b *cloud) defaultReviewers(ctx context.Context) ([]map[string]string, error) {
	var logins []string
	err := b.api.list(ctx, "list default reviewers", b.repoPath("effective-default-reviewers"), nil, 100, 0,
		func(raw []byte) (bool, error) {
			var r struct {
				User bbUser `json:"user"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return false, err
			}
			logins = append(logins, r.User.login())
			return true, nil
		})
	if err != nil || len(logins) == 0 {
		return []map[string]string{}, err
	}
	self, err := b.WhoAmI(ctx)
	if err != nil {
		return nil, err
	}
	out := []map[string]string{}
	for _, l := range logins {
		if l != self.Login {
			out = append(out, ref(l))
		}
	}
	return out, nil
}

// update PUTs fields to pull request n with its reviewers, and more:
// Bitbucket drops the reviewers an update does not name.
func (b *cloud) update(ctx context.Context, n int, fields map[string]any, more []string) error {
	var pr bbPR
	if err := b.api.do(ctx, http.MethodGet, b.repoPath("pullrequests", fmt.Sprint(n)), nil, nil, &pr); err != nil {
		return err
	}
	reviewers := []map[string]string{}
	seen := map[string]bool{}
	for _, u := range pr.Reviewers {
		seen[u.login()] = true
		reviewers = append(reviewers, ref(u.login()))
	}
	for _, l := range more {
		if !seen[l] && l != pr.Author.login() {
			seen[l] = true
			reviewers = append(reviewers, ref(l))
		}
	}
	fields["reviewers"] = reviewers
	if _, ok := fields["title"]; !ok {
		fields["title"] = pr.Title // Bitbucket requires one
	}
	return b.api.do(ctx, http.MethodPut, b.repoPath("pullrequests", fmt.Sprint(n)), nil, fields, nil)
}

// EditChange changes title and description, then declines when asked to
// close: Bitbucket closes a pull request unmerged only by declining it.
func (b *cloud) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	if e.Title != nil || e.Body != nil {
		fields := map[string]any{}
		if e.Title != nil {
			fields["title"] = *e.Title
		}
		if e.Body != nil {
			fields["description"] = *e.Body
		}
		if err := b.update(ctx, n, fields, nil); err != nil {
			return fmt.Errorf("edit pull request #%d: %w", n, err)
		}
	}
	if e.Close {
		if err := b.api.do(ctx, http.MethodPost, b.repoPath("pullrequests", fmt.Sprint(n), "decline"), nil, nil, nil); err != nil {
			return fmt.Errorf("decline pull request #%d: %w", n, err)
		}
	}
	return nil
}

// RequestReviewers adds reviewers, by account ID ("557058:…") or UUID
// ("{…}"). Bitbucket Cloud's API takes no group reviewers: a "ws/group"
// is left out, and the log says so, as on GitLab.
func (b *cloud) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	var people []string
	for _, r := range reviewers {
		if strings.Contains(r, "/") {
			b.cfg.Logger.Warn("Bitbucket Cloud has no group reviewers: name people by account ID", "reviewer", r, "number", n)
			continue
		}
		people = append(people, r)
	}
	if len(people) == 0 {
		return nil
	}
	if err := b.update(ctx, n, map[string]any{}, people); err != nil {
		return fmt.Errorf("request reviewers on #%d: %w", n, err)
	}
	return nil
}

func (b *cloud) Comment(ctx context.Context, n int, text string) error {
	body := map[string]any{"content": map[string]string{"raw": text}}
	if err := b.api.do(ctx, http.MethodPost, b.repoPath("pullrequests", fmt.Sprint(n), "comments"), nil, body, nil); err != nil {
		return fmt.Errorf("comment on #%d: %w", n, err)
	}
	return nil
}

// Commented pages through the pull request's comments for one by an
// account by accepts that contains mark.
func (b *cloud) Commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	found := false
	err := b.api.list(ctx, fmt.Sprintf("list comments of #%d", n), b.repoPath("pullrequests", fmt.Sprint(n), "comments"),
		nil, commentPage, maxCommentPages, func(raw []byte) (bool, error) {
			var c struct {
				User    bbUser `json:"user"`
				Content struct {
					Raw string `json:"raw"`
				} `json:"content"`
			}
			if err := json.Unmarshal(raw, &c); err != nil {
				return false, err
			}
			found = strings.Contains(c.Content.Raw, mark) && by(c.User.login())
			return !found, nil
		})
	return found, err
}
