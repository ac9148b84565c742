package gitops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

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
	// can be kept, and the run says so once. NoTracker: the host has no
	// issues at all, and no setting turns them on.
	Off, NoTracker bool
}

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
	id, err := s.h.WhoAmI(ctx)
	if err != nil {
		return nil, err
	}
	is, err := s.h.FindIssue(ctx, id.Login, func(issues []*Issue) *Issue { return pickDashboard(issues, id.Login, title) })
	switch {
	case errors.Is(err, ErrIssuesOff):
		return &Dashboard{Off: true, NoTracker: errors.Is(err, ErrNoIssueTracker)}, nil
	case err != nil:
		return nil, fmt.Errorf("list the bot's issues, to find its dashboard: %w", err)
	case is == nil:
		return &Dashboard{}, nil
	}
	d := &Dashboard{Number: is.Number, URL: is.URL, Body: is.Body, Controls: dashboard.Parse(is.Body)}
	if d.State, d.Known = dashboard.Decode(d.Body); !d.Known {
		s.o.Logger.Warn("the dashboard's hidden marker cannot be read: first sightings start again from now", "issue", d.Number)
		d.State = dashboard.State{Since: is.Created.UTC()}
	}
	return d, nil
}

// pickDashboard is the bot's dashboard among issues: by marker first,
// then by label or title.
func pickDashboard(issues []*Issue, bot, title string) *Issue {
	var fallback *Issue
	for _, is := range issues {
		if !strings.EqualFold(is.Author, bot) {
			continue
		}
		if dashboard.HasMarker(is.Body) {
			return is
		}
		labelled := slices.ContainsFunc(is.Labels, func(l string) bool { return strings.EqualFold(l, DashboardLabel) })
		if fallback == nil && (labelled || title != "" && is.Title == title) {
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
func writeDashboard(ctx context.Context, h Forge, d *Dashboard, title, body string) (number int, url string, err error) {
	if d.Number != 0 {
		if d.Body == body {
			return d.Number, d.URL, nil
		}
		if err := h.EditIssue(ctx, d.Number, body); err != nil {
			return 0, "", fmt.Errorf("edit the dashboard #%d: %w", d.Number, err)
		}
		return d.Number, d.URL, nil
	}
	is, err := h.CreateIssue(ctx, title, body, []string{DashboardLabel})
	if err != nil {
		return 0, "", fmt.Errorf("create the dashboard issue: %w", err)
	}
	return is.Number, is.URL, nil
}
