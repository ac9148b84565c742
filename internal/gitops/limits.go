package gitops

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/plan"
)

// waiter is a group whose PR is not opened this run, and why.
type waiter struct {
	g        group
	approval bool // waits for a tick, not for a slot
}

// admit keeps the groups this run brings in line and sets aside those
// whose new PR must wait: for approval (RunOptions.Approval) unless ticked
// "open now", or for a slot (MaxOpen, PerHour, PerRun). A group with an open PR,
// one whose updates were all declined, one with nothing left to write and
// a ticked one are always kept: existing PRs are kept current, and a tick
// opens a PR beyond the limits. A partial run (a rollback) is a person's
// request: no limit applies.
func (r *runner) admit(ctx context.Context, gs []group, p *plan.Plan) (keep []group, wait []waiter) {
	if r.o.Partial {
		return gs, nil
	}
	var fresh []group
	ticked := 0
	for _, g := range gs {
		u := r.undeclined(g)
		if r.open[g.Branch] != nil || len(u.Updates) == 0 || r.nothingToWrite(u) {
			continue
		}
		switch {
		case r.tickedOpen(g), r.tickedAgain(g):
			ticked++
		case r.needsApproval(u):
			wait = append(wait, waiter{g: u, approval: true})
			r.res.AwaitingApproval = append(r.res.AwaitingApproval, g.Branch)
		default:
			fresh = append(fresh, g)
		}
	}
	slices.SortStableFunc(fresh, func(a, b group) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), r.queuedSince(a.Branch).Compare(r.queuedSince(b.Branch)),
			oldest(a, p).Compare(oldest(b, p)), cmp.Compare(a.Branch, b.Branch))
	})
	slots := len(fresh)
	if r.o.MaxOpen > 0 {
		slots = min(slots, r.o.MaxOpen-len(r.open)-ticked)
	}
	if r.o.PerRun > 0 {
		slots = min(slots, r.o.PerRun-ticked)
	}
	if r.o.PerHour > 0 && slots > 0 {
		// Asked only when a PR would open: a rerun with nothing new to
		// open costs no request more.
		slots = min(slots, r.o.PerHour-r.openedLastHour(ctx)-ticked)
	}
	slots = max(slots, 0)
	if slots < len(fresh) {
		r.res.Limits = r.limitsText()
	}
	waits := map[string]bool{}
	for _, g := range fresh[slots:] {
		waits[g.Branch] = true
		wait = append(wait, waiter{g: r.undeclined(g)})
		r.res.Waiting = append(r.res.Waiting, g.Branch)
	}
	// The admitted keep the plan's order: the queue decides who gets a
	// slot, not the order of the writes.
	keep = slices.DeleteFunc(gs, func(g group) bool {
		return waits[g.Branch] || slices.Contains(r.res.AwaitingApproval, g.Branch)
	})
	if len(wait) > 0 && r.o.Dashboard == nil {
		r.log.Warn("updates wait for a slot or an approval, but there is no dashboard to list them or tick them on", "waiting", len(wait))
	}
	return keep, wait
}

// openedLastHour counts the PRs the bot opened in the hour up to now, by
// the host's creation times: open, closed and merged ones alike, whatever
// run or process opened them, so that pullRequests.perHour holds under any
// schedule. The bot's are those on its branches (the prefix, the
// repository's own) with its marker. When the host cannot say, the run
// opens nothing new: the limit is a promise, and the next run asks again.
func (r *runner) openedLastHour(ctx context.Context) int {
	since := r.clock.Now().Add(-time.Hour)
	prs, err := r.h.RecentChanges(ctx, since)
	if isRateLimit(err) {
		r.limit(err)
	}
	if err != nil {
		r.log.Warn("cannot tell how many pull requests opened in the last hour; opening none this run", "err", err)
		return r.o.PerHour
	}
	n := 0
	for _, pr := range prs {
		if _, ok := prMarker(pr); ok && r.counts(pr) && strings.HasPrefix(pr.Head, r.o.BranchPrefix) && !pr.Created.Before(since) {
			n++
		}
	}
	return n
}

// counts reports whether pr counts toward the hourly limit: the bot's own
// (mine), or, before the run knows who it is, any from the repository's
// own branches, so that not knowing errs toward opening fewer.
func (r *runner) counts(pr *Change) bool {
	if r.by == nil {
		return pr.OwnBranch
	}
	return r.mine(pr)
}

// rank is a group's place in the queue for slots: rollbacks, promotions
// and pre-pulls (a rollout already under way) first, then the smallest
// change: patch, digest and pin (the same version, rebuilt or pinned),
// then minor and build, then major. A group ranks as its largest update.
func rank(g group) int {
	switch g.Kind {
	case plan.KindRollback, plan.KindPromotion, plan.KindPrepull:
		return 0
	}
	worst := 0
	for _, u := range g.Updates {
		n := 3 // major, and any type not named
		switch u.Type {
		case "patch", "digest", "pin", "rollback":
			n = 1
		case "minor", "build":
			n = 2
		}
		worst = max(worst, n)
	}
	return worst
}

// oldest is when the group's newest image has been around longest: the
// earliest first sighting of its digests, else their build time; zero
// (first in line) when nothing says.
func oldest(g group, p *plan.Plan) time.Time {
	var t time.Time
	for _, u := range g.Updates {
		at, ok := p.Seen[u.Digest]
		if !ok && u.Evidence != nil && u.Evidence.Age != nil {
			at, ok = u.Evidence.Age.Created, true
		}
		if ok && (t.IsZero() || at.Before(t)) {
			t = at
		}
	}
	return t
}

// nothingToWrite reports whether the default branch has g's changes already.
func (r *runner) nothingToWrite(g group) bool {
	n := len(r.res.Problems)
	files, err := r.edits(g)
	r.res.Problems = r.res.Problems[:n] // group() reports them, once
	return err == nil && len(files) == 0
}

func (r *runner) tickedOpen(g group) bool {
	d := r.o.Dashboard
	return d != nil && d.Controls.OpenNow[g.Branch]
}

// tickedAgain reports whether a person ticked "propose again" on one of
// g's declined versions: a request as explicit as "open now".
func (r *runner) tickedAgain(g group) bool {
	d := r.o.Dashboard
	return d != nil && slices.ContainsFunc(g.Updates, func(u plan.Update) bool { return d.Controls.Again[againID(g, u)] })
}

func (r *runner) needsApproval(g group) bool {
	if r.o.Approval == nil || g.Kind == plan.KindRollback {
		return false
	}
	return slices.ContainsFunc(g.Updates, r.o.Approval)
}

// againID is the dashboard's ID of a declined version: branch@tag.
func againID(g group, u plan.Update) string { return g.Branch + "@" + u.To }
