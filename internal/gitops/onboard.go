package gitops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// Onboarding is the config a repository without one is offered
// (DESIGN.md "Dashboard and limits"): one "Configure imagebot" PR adding
// what `init` writes, whose body previews what follows its merge. Until it
// is merged nothing else is opened; closed unmerged, it stops imagebot in
// the repository until a config appears.
type Onboarding struct {
	Path   string // ".imagebot.yaml"
	Config []byte
	Notes  []string // what init could not do, in its words
	// Lead heads the body (Markdown from adopt): what the config was
	// converted from, what to turn off in the other tool, the limits.
	Lead string
	// Scanned says whether the proposed config scans a file (its paths
	// and exclude); nil scans all. The preview leaves out the rest.
	Scanned func(file string) bool
	// NoDashboard says the repository can have no dashboard issue (the
	// host has no issue tracker, or issues are off): the updates the
	// limits hold are named in each run's log instead.
	NoDashboard bool
}

// preview is p as far as the proposed config scans: the updates, notices
// and problems of the files it excludes (a release archive, test data)
// would never follow the merge.
func (ob *Onboarding) preview(p *plan.Plan) *plan.Plan {
	if ob.Scanned == nil {
		return p
	}
	out := &plan.Plan{}
	for _, u := range p.Updates {
		u.Locations = slices.DeleteFunc(slices.Clone(u.Locations), func(l scan.Location) bool { return !ob.Scanned(l.File) })
		if len(u.Locations) > 0 {
			out.Updates = append(out.Updates, u)
		}
	}
	for _, n := range p.Notices {
		if ob.Scanned(n.File) {
			out.Notices = append(out.Notices, n)
		}
	}
	for _, pr := range p.Problems {
		if ob.Scanned(pr.File) {
			out.Problems = append(out.Problems, pr)
		}
	}
	return out
}

const onboardTitle = "Configure imagebot"

// onboardMark tells the onboarding PR's body from others'.
const onboardMark = "<!-- imagebot:onboarding -->"

// onboard keeps the onboarding PR, and does nothing else. It costs who
// the bot is (once a run) and one listing of the branch's PRs, open and
// closed, into the default branch. Only the bot's own count (mine): a PR
// anyone else opens from the branch, whatever it says, neither continues
// onboarding nor undoes a maintainer's close, which stands until a
// config is committed (or the maintainer reopens the bot's PR).
func (r *runner) onboard(ctx context.Context, p *plan.Plan) (*Result, error) {
	ob := r.o.Onboarding
	branch := r.o.BranchPrefix + "configure"
	if err := r.identify(ctx); err != nil {
		return nil, err
	}
	prs, err := r.h.Changes(ctx, r.query(Query{State: "all", Head: branch}))
	if err != nil {
		return nil, err
	}
	var open, closed *Change
	for _, pr := range prs {
		switch {
		case !r.mine(pr) || !strings.Contains(pr.Body, onboardMark):
			continue
		case pr.State == "open":
			open = pr
		case !pr.Merged:
			closed = pr
		}
		// A merged one whose config was deleted since: offered again.
	}
	if closed != nil && open == nil {
		r.res.Stopped = r.words(fmt.Sprintf("the onboarding pull request %s was closed without merging: imagebot does nothing here until a config file (%s) is committed", r.num(closed.Number), ob.Path))
		r.log.Info(r.res.Stopped)
		return r.res, nil
	}
	if err := r.rm.fetchBranches(ctx, branch); err != nil {
		return nil, err
	}
	files := map[string][]byte{ob.Path: ob.Config}
	tree, err := r.tree(files)
	if err != nil {
		return nil, err
	}
	tip := r.rm.branchTip(branch)
	if tip != nil && !r.ours(tip) {
		r.res.Foreign = append(r.res.Foreign, branch)
		r.log.Warn("branch has commits imagebot did not make; leaving it alone", "branch", branch)
		return r.res, nil
	}
	body := r.words(onboardBody(ob, p, r.o.BranchPrefix))
	if r.o.DryRun {
		fmt.Fprint(r.o.Out, r.words(fmt.Sprintf("would open pull request %q from %s\n\n%s\n", onboardTitle, branch, body)))
		r.res.Opened = append(r.res.Opened, branch)
		return r.res, nil
	}
	if tip == nil || !r.current(tip, tree, files) {
		who := r.o.Author
		if who.When.IsZero() {
			who.When = r.clock.Now()
		}
		commit, err := writeCommit(r.rm.repo.Storer, tree, r.tip.Hash, onboardTitle, who)
		if err != nil {
			return nil, err
		}
		if _, err := r.publish(ctx, branch, commit, tip); err != nil {
			return nil, err
		}
	}
	if err := r.onboardPR(ctx, branch, open, body); errors.As(err, new(*blockedError)) {
		r.res.Failed = append(r.res.Failed, fmt.Errorf("%s: %w", branch, err))
	} else if err != nil {
		return nil, err
	}
	return r.res, nil
}

// onboardPR opens the onboarding PR, or brings its body up to date.
func (r *runner) onboardPR(ctx context.Context, branch string, pr *Change, body string) error {
	t := onboardTitle
	if pr == nil {
		created, isNew, err := r.h.CreateChange(ctx, NewChange{Title: t, Body: body, Head: branch, Base: r.base})
		if err != nil {
			return err
		}
		if !isNew && !r.mine(created) {
			return r.blocked(branch, created)
		}
		if !isNew {
			return r.onboardPR(ctx, branch, created, body)
		}
		r.record(branch, created, t)
		r.res.Opened = append(r.res.Opened, branch)
		r.log.Info("opened the onboarding pull request", "number", created.Number)
		return nil
	}
	r.record(branch, pr, pr.Title)
	if pr.Body == body {
		r.res.Unchanged = append(r.res.Unchanged, branch)
		return nil
	}
	if err := r.h.EditChange(ctx, pr.Number, ChangeEdit{Body: &body}); err != nil {
		return err
	}
	r.res.Updated = append(r.res.Updated, branch)
	return nil
}

// onboardBody previews what merging does: the pull requests that follow,
// grouped as they will be opened, and the notices and problems.
func onboardBody(ob *Onboarding, p *plan.Plan, prefix string) string {
	p = ob.preview(p)
	var b strings.Builder
	fmt.Fprintf(&b, "Welcome to imagebot. This pull request adds `%s`, the configuration `imagebot init` suggests for this repository. "+
		"Nothing else is proposed until it is merged; edit it on this branch first if you like. "+
		"Closing it without merging stops imagebot here until a config file is committed.\n\n", ob.Path)
	b.WriteString(ob.Lead)
	gs := groups(p, prefix)
	fmt.Fprintf(&b, "### What happens once this is merged\n\n")
	if len(gs) == 0 {
		b.WriteString("Every image is up to date: no pull request would open now.\n\n")
	} else {
		waits := "the rest wait on the dashboard issue imagebot then creates"
		if ob.NoDashboard {
			waits = "the rest wait, named in each run's log: there is no issue here for the dashboard"
		}
		fmt.Fprintf(&b, "These pull requests would open (subject to `pullRequests.maxOpen`/`perHour`/`perRun` and `approval`; %s):\n\n", waits)
		for i, g := range gs {
			if i == 200 {
				fmt.Fprintf(&b, "- … and %d more\n", len(gs)-i)
				break
			}
			fmt.Fprintf(&b, "- %s (%s)\n", tame(title(g)), types(g))
		}
		b.WriteString("\n")
	}
	previewNotes(&b, "Notices", p.Notices)
	if len(p.Problems) > 0 {
		b.WriteString("### Problems\n\n")
		for i, pr := range p.Problems {
			if i == 100 {
				fmt.Fprintf(&b, "- … and %d more\n", len(p.Problems)-i)
				break
			}
			text := tame(pr.Message)
			if e := pr.Elsewhere(); e != "" {
				text += " (also at " + tame(e) + ")"
			}
			fmt.Fprintf(&b, "- %s: %s\n", lit(fmt.Sprintf("%s:%d", pr.File, pr.Line)), text)
		}
		b.WriteString("\n")
	}
	if len(ob.Notes) > 0 {
		b.WriteString("### What `init` could not do\n\n")
		for _, n := range ob.Notes {
			fmt.Fprintf(&b, "- %s\n", tame(n))
		}
		b.WriteString("\n")
	}
	return clip(b.String(), bodyBudget-len(onboardMark)-2) + "\n" + onboardMark + "\n"
}

func previewNotes(b *strings.Builder, heading string, ns []plan.Notice) {
	var lines []string
	for _, n := range ns {
		if n.Reason == plan.ReasonUpToDate {
			continue
		}
		line := fmt.Sprintf("- %s: %s", lit(fmt.Sprintf("%s:%d", n.File, n.Line)), n.Reason)
		if ref := noticeRef(n); ref != "" {
			line = fmt.Sprintf("- %s: %s %s", lit(fmt.Sprintf("%s:%d", n.File, n.Line)), ref, n.Reason)
		}
		if n.Detail != "" {
			line += ": " + tame(n.Detail)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "### %s\n\n", heading)
	for i, l := range lines {
		if i == 100 {
			fmt.Fprintf(b, "- … and %d more\n", len(lines)-i)
			break
		}
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
}
