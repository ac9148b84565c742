package azure

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// perPage is the $top of every listing.
const perPage = 100

// listedDescription is how much of a description Azure DevOps' listing
// shows; maxDescription the most a pull request holds.
const (
	listedDescription = 400
	maxDescription    = 4000
)

type pullRequest struct {
	ID            int       `json:"pullRequestId"`
	Status        string    `json:"status"` // active, abandoned, completed
	Title         string    `json:"title"`
	Description   string    `json:"description"`
	SourceRefName string    `json:"sourceRefName"`
	TargetRefName string    `json:"targetRefName"`
	IsDraft       bool      `json:"isDraft"`
	CreationDate  time.Time `json:"creationDate"`
	CreatedBy     struct {
		ID         string `json:"id"`
		UniqueName string `json:"uniqueName"`
	} `json:"createdBy"`
	Labels []struct {
		Name   string `json:"name"`
		Active bool   `json:"active"`
	} `json:"labels"`
	// ForkSource is set on a pull request from a fork.
	ForkSource *struct {
		Name string `json:"name"`
	} `json:"forkSource"`
}

func (a *ado) change(pr *pullRequest) *forge.Change {
	c := &forge.Change{Number: pr.ID, ID: strconv.Itoa(pr.ID), Title: pr.Title, Body: unrotate(pr.Description),
		Author: pr.CreatedBy.UniqueName, Head: strings.TrimPrefix(pr.SourceRefName, "refs/heads/"),
		OwnBranch: pr.ForkSource == nil && strings.HasPrefix(pr.SourceRefName, "refs/heads/"),
		Base:      strings.TrimPrefix(pr.TargetRefName, "refs/heads/"), State: "open",
		Merged: pr.Status == "completed", Created: pr.CreationDate}
	if pr.Status != "active" {
		c.State = "closed"
	}
	for _, l := range pr.Labels {
		if l.Active {
			c.Labels = append(c.Labels, l.Name)
		}
	}
	a.mu.Lock()
	if a.web != "" {
		c.URL = a.web + "/pullrequest/" + strconv.Itoa(pr.ID)
	}
	a.mu.Unlock()
	return c
}

// pulls lists the pull requests q keeps, newest first, and calls each with
// them until it returns false. Azure DevOps filters by status, source,
// target and creator (by identity ID: the bot's own is known from
// connectionData); the rest is read here, and by keep (nil: all). A kept
// one whose description the listing cut is read whole.
func (a *ado) pulls(ctx context.Context, q forge.Query, extra url.Values, limit int, keep, each func(*forge.Change) bool) error {
	v := url.Values{}
	for k, vs := range extra {
		v[k] = vs
	}
	switch q.State {
	case "open":
		v.Set("searchCriteria.status", "active")
	default: // closed is abandoned or completed: both are read
		v.Set("searchCriteria.status", "all")
	}
	if q.Head != "" {
		v.Set("searchCriteria.sourceRefName", "refs/heads/"+q.Head)
	}
	if q.Base != "" {
		v.Set("searchCriteria.targetRefName", "refs/heads/"+q.Base)
	}
	if q.Author != "" {
		me, err := a.whoami(ctx)
		if err != nil {
			return err
		}
		if strings.EqualFold(me.login, q.Author) {
			v.Set("searchCriteria.creatorId", me.id)
		}
	}
	v.Set("$top", strconv.Itoa(perPage))
	what := "list " + v.Get("searchCriteria.status") + " pull requests"
	return forge.Pages(what, limit, func(n int) (int, error) {
		v.Set("$skip", strconv.Itoa((n-1)*perPage))
		var page struct {
			Value []*pullRequest `json:"value"`
		}
		if _, err := a.c.do(ctx, "GET", a.c.base, a.repoPath+"/pullrequests", v, nil, &page); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		for _, pr := range page.Value {
			c := a.change(pr)
			if !q.Keeps(c) || keep != nil && !keep(c) {
				continue
			}
			if utf8.RuneCountInString(pr.Description) >= listedDescription && !markerFirst(pr.Description) {
				full, err := a.get(ctx, pr.ID)
				if err != nil {
					return 0, err
				}
				c = a.change(full)
			}
			if !each(c) {
				return 0, nil
			}
		}
		if len(page.Value) < perPage {
			return 0, nil
		}
		return n + 1, nil
	})
}

func (a *ado) get(ctx context.Context, id int) (*pullRequest, error) {
	var pr pullRequest
	if _, err := a.c.do(ctx, "GET", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(id), nil, nil, &pr); err != nil {
		return nil, fmt.Errorf("get pull request !%d: %w", id, err)
	}
	return &pr, nil
}

func (a *ado) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	var out []*forge.Change
	err := a.pulls(ctx, q, nil, 0, nil, func(c *forge.Change) bool { out = append(out, c); return true })
	return out, err
}

// ClosedChanges lists the closed pull requests of branches in one listing
// of every status (Azure DevOps cannot filter by "abandoned or
// completed"), by the bot's creatorId and the base, kept here by branch:
// a page per 100 of the bot's pull requests, however many branches wait
// (a listing per branch cost one request per waiting update, every run).
// Only those of branches are read whole where the listing cut them: not
// the merged onboarding PR, say, on every run.
func (a *ado) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	ofBranches := func(c *forge.Change) bool { return slices.Contains(branches, c.Head) }
	err := a.pulls(ctx, forge.Query{State: "closed", Base: by.Base, Author: by.Author}, nil, 0, ofBranches, func(c *forge.Change) bool {
		out[c.Head] = append(out[c.Head], c)
		return true
	})
	return out, err
}

// RecentChanges lists the pull requests created since (minTime), newest
// first, as Azure DevOps lists them.
func (a *ado) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	extra := url.Values{"searchCriteria.minTime": {since.UTC().Format(time.RFC3339)}, "searchCriteria.queryTimeRangeType": {"created"}}
	var out []*forge.Change
	err := a.pulls(ctx, forge.Query{State: "all"}, extra, forge.RecentPages, nil, func(c *forge.Change) bool {
		if c.Created.Before(since) {
			return false
		}
		out = append(out, c)
		return true
	})
	return out, err
}

// markerStart starts imagebot's marker of a change request, the hidden
// line that says what it proposes (the lifecycle's; an HTML comment,
// which Azure DevOps' Markdown does not show).
const markerStart = "<!-- imagebot:v"

// rotate moves the marker that ends body ("…\n<!-- imagebot:v2 {…} -->\n")
// to its start: Azure DevOps lists descriptions cut at 400 characters,
// and a marker first is read from the listing, with no request per pull
// request. unrotate puts it back, so the lifecycle reads the body it
// wrote.
func rotate(body string) string {
	rest, ok := strings.CutSuffix(body, "\n")
	if !ok {
		return body
	}
	i := strings.LastIndex(rest, "\n")
	line := rest[i+1:]
	if !strings.HasPrefix(line, markerStart) || !strings.HasSuffix(line, " -->") {
		return body
	}
	return line + "\n" + rest[:i+1]
}

// unrotate is rotate undone. On a description the listing cut, it is the
// start of the text and the whole marker: all the lifecycle reads of a
// listed pull request's body.
func unrotate(desc string) string {
	if !strings.HasPrefix(desc, markerStart) {
		return desc
	}
	line, rest, ok := strings.Cut(desc, "\n")
	if !ok || !strings.HasSuffix(line, " -->") {
		return desc
	}
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		// Cut by the listing: the marker keeps a line of its own, as
		// rotate found it (the text before it ends a line, or is none).
		rest += "\n"
	}
	return rest + line + "\n"
}

// markerFirst reports whether a listed description starts with a whole
// marker line, which is what the lifecycle needs of it.
func markerFirst(desc string) bool {
	line, _, ok := strings.Cut(desc, "\n")
	return ok && strings.HasPrefix(line, markerStart) && strings.HasSuffix(line, " -->")
}

// description is body as a pull request holds it: at most 4,000
// characters. A longer one keeps its start, where the rotated marker is,
// and its end, and loses the middle, with a line that says so.
func description(body string) string {
	if utf8.RuneCountInString(body) <= maxDescription {
		return body
	}
	const cut = "\n\n… (cut: Azure DevOps keeps 4,000 characters)\n\n"
	r := []rune(body)
	tail := 1000
	head := maxDescription - tail - utf8.RuneCountInString(cut)
	return string(r[:head]) + cut + string(r[len(r)-tail:])
}

// CreateChange opens a pull request. A 409 (TF401179: one is active for
// the branch already, a race with another run) returns that one.
func (a *ado) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	in := map[string]any{"sourceRefName": "refs/heads/" + c.Head, "targetRefName": "refs/heads/" + c.Base,
		"title": c.Title, "description": description(rotate(c.Body)), "isDraft": c.Draft}
	var pr pullRequest
	_, err := a.c.do(ctx, "POST", a.c.base, a.repoPath+"/pullrequests", nil, in, &pr)
	if err == nil {
		return a.change(&pr), true, nil
	}
	if status(err) == 409 {
		var open *forge.Change
		lerr := a.pulls(ctx, forge.Query{State: "open", Head: c.Head, Base: c.Base}, nil, 0, nil, func(ch *forge.Change) bool {
			open = ch
			return false
		})
		if lerr == nil && open != nil {
			return open, false, nil
		}
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, err)
}

// EditChange edits a pull request; closing is abandoning it.
func (a *ado) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	in := map[string]any{}
	if e.Title != nil {
		in["title"] = *e.Title
	}
	if e.Body != nil {
		in["description"] = description(rotate(*e.Body))
	}
	if e.Close {
		in["status"] = "abandoned"
	}
	if _, err := a.c.do(ctx, "PATCH", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(n), nil, in, nil); err != nil {
		return fmt.Errorf("edit pull request !%d: %w", n, err)
	}
	return nil
}

// Label tags a pull request, one request per label: Azure DevOps makes a
// tag it does not know.
func (a *ado) Label(ctx context.Context, n int, labels []string) error {
	for _, l := range labels {
		if _, err := a.c.do(ctx, "POST", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(n)+"/labels", nil, map[string]string{"name": l}, nil); err != nil {
			return fmt.Errorf("tag pull request !%d with %q: %w", n, l, err)
		}
	}
	return nil
}

// EnableAutoMerge sets auto-complete, by the token's identity, deleting
// the source branch once merged.
func (a *ado) EnableAutoMerge(ctx context.Context, c *forge.Change) error {
	me, err := a.whoami(ctx)
	if err != nil {
		return err
	}
	in := map[string]any{"autoCompleteSetBy": map[string]string{"id": me.id},
		"completionOptions": map[string]any{"deleteSourceBranch": true}}
	if _, err := a.c.do(ctx, "PATCH", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(c.Number), nil, in, nil); err != nil {
		return fmt.Errorf("set auto-complete on !%d: %w", c.Number, err)
	}
	return nil
}
