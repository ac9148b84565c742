package gitops

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/imagebot/imagebot/internal/dashboard"
)

// Dashboard is the dashboard issue as Session.Dashboard found it.
type Dashboard struct {
	Number int    // 0: none yet
	URL    string // its page
	Body   string
	// State is what its marker records; Known is false when there is no
	// issue, or its marker cannot be read (a person edited it away): then
	// the record starts again, from the issue's creation when there is one.
	State dashboard.State
	Known bool
	// Controls are its ticked boxes.
	Controls dashboard.Controls
	// Off is true when the repository has issues turned off: no dashboard
	// can be kept, and the run says so once.
	Off bool
}

// maxIssuePages bounds the pages of the bot's issues looked through for
// its dashboard: it is created early, so it is on the first page sorted by
// creation unless the bot opened hundreds of PRs before it.
const maxIssuePages = 3

// DashboardLabel is put on the dashboard issue when it is created: with
// its marker and its title, one of three ways to know it again, so that a
// person who edits the marker away, or renames it, makes no duplicate.
const DashboardLabel = "imagebot-dashboard"

// Dashboard finds the bot's dashboard issue, open or closed: the oldest
// issue created by the bot whose body has the dashboard's marker, else
// that has its label or title. An issue anyone else opened, however
// marked, is never it, nor is a PR. It costs who the bot is (once a run)
// and one page of the bot's issues, oldest first.
func (s *Session) Dashboard(ctx context.Context, title string) (*Dashboard, error) {
	id, err := s.h.whoAmI(ctx)
	if err != nil {
		return nil, err
	}
	opts := &github.IssueListByRepoOptions{Creator: id.login, State: "all", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: perPage}}
	for page := 1; page <= maxIssuePages; page++ {
		issues, resp, err := s.h.gh.Issues.ListByRepo(ctx, s.h.owner, s.h.name, opts)
		if status(err) == http.StatusGone {
			return &Dashboard{Off: true}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list the bot's issues, to find its dashboard: %w", err)
		}
		if is := pickDashboard(issues, id.login, title); is != nil {
			d := &Dashboard{Number: is.GetNumber(), URL: is.GetHTMLURL(), Body: is.GetBody(), Controls: dashboard.Parse(is.GetBody())}
			if d.State, d.Known = dashboard.Decode(d.Body); !d.Known {
				s.o.Logger.Warn("the dashboard's hidden marker cannot be read: first sightings start again from now", "issue", d.Number)
				d.State = dashboard.State{Since: is.GetCreatedAt().UTC()}
			}
			return d, nil
		}
		if resp.NextPage == 0 || resp.NextPage <= page {
			break
		}
		opts.Page = resp.NextPage
	}
	return &Dashboard{}, nil
}

// pickDashboard is the bot's dashboard among issues: by marker first,
// then by label or title.
func pickDashboard(issues []*github.Issue, bot, title string) *github.Issue {
	var fallback *github.Issue
	for _, is := range issues {
		if is.IsPullRequest() || !strings.EqualFold(is.GetUser().GetLogin(), bot) {
			continue
		}
		if dashboard.HasMarker(is.GetBody()) {
			return is
		}
		labelled := slices.ContainsFunc(is.Labels, func(l *github.Label) bool { return strings.EqualFold(l.GetName(), DashboardLabel) })
		if fallback == nil && (labelled || title != "" && is.GetTitle() == title) {
			fallback = is
		}
	}
	return fallback
}

// FirstSeen is what the plan needs of the record (plan.Options.FirstSeen
// and SeenSince): nil for no dashboard, which trusts created alone.
func (d *Dashboard) FirstSeen() (seen map[string]time.Time, since time.Time) {
	if d == nil || d.Off {
		return nil, time.Time{}
	}
	seen = map[string]time.Time{}
	maps.Copy(seen, d.State.Seen)
	return seen, d.State.Since
}

// writeDashboard creates the dashboard issue or edits its body in place,
// only when the body differs; the title is left as people renamed it.
func (h *hub) writeDashboard(ctx context.Context, d *Dashboard, title, body string) (number int, url string, err error) {
	if d.Number != 0 {
		if d.Body == body {
			return d.Number, d.URL, nil
		}
		if _, _, err := h.gh.Issues.Edit(ctx, h.owner, h.name, d.Number, &github.IssueRequest{Body: &body}); err != nil {
			return 0, "", fmt.Errorf("edit the dashboard #%d: %w", d.Number, err)
		}
		return d.Number, d.URL, nil
	}
	is, _, err := h.gh.Issues.Create(ctx, h.owner, h.name, &github.IssueRequest{Title: &title, Body: &body, Labels: &[]string{DashboardLabel}})
	if err != nil {
		return 0, "", fmt.Errorf("create the dashboard issue: %w", err)
	}
	return is.GetNumber(), is.GetHTMLURL(), nil
}

// blobURL links a file's line on the commit the run planned from.
func (h *hub) blobURL(commit, file string, line int) string {
	if h.htmlURL == "" {
		return ""
	}
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	u := fmt.Sprintf("%s/blob/%s/%s", h.htmlURL, commit, strings.Join(parts, "/"))
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}
