package gitops

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/dashboard"
	"github.com/imagebot/imagebot/internal/plan"
)

// keepDashboard writes the dashboard issue when its content changed: one
// request at most (create or edit), none on a rerun with nothing new. A
// run GitHub rate-limited, or one with issues turned off, writes none.
func (r *runner) keepDashboard(ctx context.Context, p *plan.Plan, gs []group, wait []waiter) {
	d := r.o.Dashboard
	if d == nil {
		return
	}
	if d.NoTracker {
		r.log.Warn(r.h.Name() + " has no issue tracker: no dashboard; waiting and approval-pending updates are in the log only")
		return
	}
	if d.Off {
		r.log.Warn("issues are turned off in this repository on " + r.h.Name() + ": no dashboard; waiting and approval-pending updates are in the log only. " +
			"Turn issues on in the repository's settings to get the dashboard")
		return
	}
	body := r.words(dashboard.Render(r.view(p, gs, wait)))
	r.res.Dashboard = d.Number
	if body == d.Body {
		return
	}
	if r.o.DryRun {
		fmt.Fprintf(r.o.Out, "would write the dashboard issue\n\n%s\n", body)
		return
	}
	if r.limited {
		return
	}
	n, url, err := writeDashboard(ctx, r.h, d, cmp.Or(r.o.DashboardTitle, "imagebot dashboard"), body)
	switch {
	case isRateLimit(err):
		r.limit(err)
	case err != nil:
		r.res.Failed = append(r.res.Failed, err)
	default:
		if d.Number == 0 {
			r.log.Info("created the dashboard issue", "number", n, "url", url)
		}
		r.res.Dashboard = n
		d.Number, d.URL, d.Body = n, url, body
	}
}

// view is what the dashboard shows after this run.
func (r *runner) view(p *plan.Plan, gs []group, wait []waiter) dashboard.View {
	v := dashboard.View{State: r.state(p), Limits: r.limitsText(), MaxBody: bodyLimit(r.h)}
	v.Open = r.openEntries()
	for _, w := range wait {
		e := dashboard.Entry{ID: w.g.Branch, Text: tame(title(w.g)) + " (" + types(w.g) + ")"}
		if w.approval {
			v.Approval = append(v.Approval, e)
		} else {
			v.Waiting = append(v.Waiting, e)
		}
	}
	for _, h := range p.Held {
		text := word(shortName(h.Image)) + " " + word(h.Tag) + ": " + tame(h.Why)
		if !h.Passes.IsZero() {
			// The age changes with the clock; the gate and its times do
			// not, so that a rerun writes the same body.
			text = word(shortName(h.Image)) + " " + word(h.Tag) + ": held by `" + h.Gate + "`"
		}
		v.Held = append(v.Held, dashboard.Held{Text: text, Seen: h.Seen, Passes: h.Passes})
	}
	v.Declined = r.declinedEntries(gs)
	for _, n := range p.Notices {
		if n.Reason == plan.ReasonUpToDate || n.Reason == plan.ReasonHeld {
			continue // up to date is no news; held has its own section
		}
		text := n.Reason
		if ref := noticeRef(n); ref != "" {
			text = ref + ": " + n.Reason
		}
		if n.Detail != "" {
			text += ": " + tame(n.Detail)
		}
		v.Notices = append(v.Notices, r.note(n.File, n.Line, text))
	}
	for _, d := range p.Drift {
		text := word(d.Reason) + ": " + tame(d.Detail)
		if d.File == "" {
			// An image no file names: the cluster and workload say where.
			v.Drift = append(v.Drift, dashboard.Note{Where: shortName(d.Image), Text: text})
			continue
		}
		v.Drift = append(v.Drift, r.note(d.File, d.Line, text))
	}
	for _, pr := range append(slices.Clone(p.Problems), r.res.Problems...) {
		text := tame(pr.Message)
		if e := pr.Elsewhere(); e != "" {
			text += " (also at " + tame(e) + ")" // a failed lookup stands for every place of its image
		}
		v.Problems = append(v.Problems, r.note(pr.File, pr.Line, text))
	}
	return v
}

func (r *runner) note(file string, line int, text string) dashboard.Note {
	return dashboard.Note{Where: fmt.Sprintf("%s:%d", file, line), URL: r.h.BlobURL(r.tip.Hash.String(), file, line), Text: text}
}

// bodyLimit is the host's limit on an issue body, in bytes, which Render
// keeps to: GitHub refuses more than 65,536 characters, GitLab more than
// 1,048,576 (a description's "1 megabyte"). Gitea and Forgejo document
// none (the content column is LONGTEXT, the API checks no length), so
// they get GitHub's, the smallest: a proxy or database in front may well
// limit what the project does not.
func bodyLimit(h Forge) int {
	if h.Name() == "GitLab" {
		return 1 << 20
	}
	return dashboard.MaxBody
}

// state is the record to keep: this run's candidates, first seen when they
// were; when some lookups failed, the earlier record too, so that an image
// the registry would not answer for does not lose its sightings.
func (r *runner) state(p *plan.Plan) dashboard.State {
	d := r.o.Dashboard
	st := dashboard.State{Since: d.State.Since, Seen: map[string]time.Time{}}
	if st.Since.IsZero() {
		st.Since = r.clock.Now().UTC().Truncate(time.Second)
	}
	if slices.ContainsFunc(p.Problems, func(pr plan.Problem) bool { return pr.Failed }) {
		maps.Copy(st.Seen, d.State.Seen)
	}
	for k, t := range p.Seen {
		st.Seen[k] = t.UTC().Truncate(time.Second)
	}
	// Waiting since the run that first queued it; a branch that got its
	// slot, or no longer waits, leaves the queue.
	st.Queued = map[string]time.Time{}
	for _, b := range r.res.Waiting {
		st.Queued[b] = r.queuedSince(b)
	}
	return st
}

// queuedSince is when branch started waiting for a slot: as the
// dashboard records it, else now.
func (r *runner) queuedSince(branch string) time.Time {
	if d := r.o.Dashboard; d != nil {
		if t, ok := d.State.Queued[branch]; ok {
			return t
		}
	}
	return r.clock.Now().UTC().Truncate(time.Second)
}

func (r *runner) limitsText() string {
	var parts []string
	if r.o.MaxOpen > 0 {
		parts = append(parts, fmt.Sprintf("at most %d open", r.o.MaxOpen))
	}
	if r.o.PerHour > 0 {
		parts = append(parts, fmt.Sprintf("%d an hour", r.o.PerHour))
	}
	if r.o.PerRun > 0 {
		parts = append(parts, fmt.Sprintf("%d a run", r.o.PerRun))
	}
	return strings.Join(parts, ", ")
}

// openEntries are the bot's open PRs after the run, by number.
func (r *runner) openEntries() []dashboard.Entry {
	prs := map[string]PullRequest{}
	for b, pr := range r.open {
		if !slices.Contains(r.res.Closed, b) {
			prs[b] = PullRequest{Number: pr.Number, URL: pr.URL, Title: pr.Title}
		}
	}
	for _, b := range r.res.Opened {
		if pr, ok := r.res.PullRequests[b]; ok {
			prs[b] = pr
		}
	}
	for b, pr := range r.res.PullRequests {
		if _, ok := prs[b]; ok {
			prs[b] = pr // the title this run gave it
		}
	}
	list := slices.Collect(maps.Values(prs))
	slices.SortFunc(list, func(a, b PullRequest) int { return cmp.Compare(a.Number, b.Number) })
	var out []dashboard.Entry
	for _, pr := range list {
		out = append(out, dashboard.Entry{Text: fmt.Sprintf("[%s](%s) %s", r.num(pr.Number), pr.URL, tame(pr.Title))})
	}
	return out
}

// declinedEntries are the versions a closed PR declines, each with its
// "propose again" box.
func (r *runner) declinedEntries(gs []group) []dashboard.Entry {
	var out []dashboard.Entry
	for _, g := range gs {
		for _, u := range g.Updates {
			if !r.declined(g, u) {
				continue
			}
			text := fmt.Sprintf("%s %s → %s", word(shortName(u.Image)), word(u.From), word(u.To))
			if n := r.closedNumber(g, u); n != 0 {
				text += fmt.Sprintf(" (%s closed)", r.num(n)) // GitLab reads #3 as an issue
			}
			out = append(out, dashboard.Entry{ID: againID(g, u), Text: text})
		}
	}
	return out
}

// closedNumber is the number of the closed PR that declined u, or 0.
func (r *runner) closedNumber(g group, u plan.Update) int {
	if pr := r.decliner(g, u); pr != nil {
		return pr.Number
	}
	return 0
}

// types lists a group's update types: "patch", "minor, major".
func types(g group) string {
	var ts []string
	for _, u := range g.Updates {
		ts = appendNew(ts, u.Type)
	}
	return strings.Join(ts, ", ")
}
