package gitops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/rogpeppe/go-internal/diff"
)

// pushCommit commits the group's files onto the tip and pushes the commit,
// leased against the branch tip this run fetched (nil: no branch), so that
// a commit pushed since, by a person or another run, is never overwritten.
// done reports that the push was refused because another run had pushed
// this same change already: that is success, and nothing more to push.
func (r *runner) pushCommit(ctx context.Context, g group, tree plumbing.Hash, files map[string][]byte, leased *object.Commit) (done bool, err error) {
	msg := title(g)
	if g.plain() {
		var err error
		if msg, err = r.o.Message(g.Updates[0]); err != nil {
			return false, err
		}
	}
	who := r.o.Author
	if who.When.IsZero() {
		who.When = r.clock.Now()
	}
	commit, err := writeCommit(r.rm.repo.Storer, tree, r.tip.Hash, msg, who)
	if err != nil {
		return false, err
	}
	if r.o.DryRun {
		r.report(r.details(ctx, g), files)
		return false, nil
	}
	if r.limited {
		return false, errRateLimited
	}
	already, perr := r.publish(ctx, g.Branch, commit, leased)
	if already {
		r.log.Info("another run pushed the same commit; not pushing it again", "branch", g.Branch, "commit", commit.String())
	}
	if perr == nil {
		return already, nil
	}
	// Refused or failed, the branch is looked at again: if it moved, the
	// lease held, and what moved it decides.
	now, err := r.rm.refetch(ctx, g.Branch)
	if err != nil || sameCommit(now, leased) {
		return false, perr
	}
	if now == nil {
		return false, fmt.Errorf("push %s: the branch was deleted while this run was going; the next run looks at it afresh", g.Branch)
	}
	if r.ours(now) && r.current(now, tree, files) {
		r.log.Info("another run pushed the same change; not pushing it again", "branch", g.Branch, "commit", now.Hash.String())
		return true, nil
	}
	return false, fmt.Errorf("push %s: the branch moved to %s while this run was going, so it was not overwritten; the next run looks at it afresh", g.Branch, now.Hash)
}

func sameCommit(a, b *object.Commit) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Hash == b.Hash
}

// pullRequest opens the branch's PR, or brings the open one's title and body
// up to date. It writes to the API only when something differs.
func (r *runner) pullRequest(ctx context.Context, g group, pr *Change, pushed bool) error {
	t := title(g)
	// The hidden marker says what a PR proposes; when it and the title
	// match, the body is what this run would write, and nothing is fetched.
	if pr != nil && pr.Title == t && sameMarker(pr.Body, g) {
		r.record(g.Branch, pr, t)
		if pushed {
			r.res.Updated = append(r.res.Updated, g.Branch)
		} else {
			r.res.Unchanged = append(r.res.Unchanged, g.Branch)
		}
		return nil
	}
	b := r.words(body(r.details(ctx, g)))
	if pr == nil {
		if r.o.DryRun {
			fmt.Fprint(r.o.Out, r.words(fmt.Sprintf("would open pull request %q from %s\n\n", t, g.Branch)))
			r.res.Opened = append(r.res.Opened, g.Branch)
			return nil
		}
		if r.limited {
			return errRateLimited
		}
		created, isNew, err := r.h.CreateChange(ctx, NewChange{
			Title: t, Body: b, Head: g.Branch, Base: r.base, Draft: r.o.Draft,
		})
		if err != nil {
			return err
		}
		if !isNew && !r.mine(created) {
			return r.blocked(g.Branch, created)
		}
		if !isNew {
			return r.pullRequest(ctx, g, created, pushed)
		}
		r.record(g.Branch, created, t)
		r.res.Opened = append(r.res.Opened, g.Branch)
		r.log.Info("opened pull request", "number", created.Number, "title", t)
		return r.decorate(ctx, g, created)
	}
	if r.o.DryRun {
		r.record(g.Branch, pr, t)
		r.res.Updated = append(r.res.Updated, g.Branch)
		fmt.Fprint(r.o.Out, r.words(fmt.Sprintf("would update pull request %s to %q\n\n", r.num(pr.Number), t)))
		return nil
	}
	if r.limited {
		return errRateLimited
	}
	// Reported as updated only once it is: a failed edit is in Failed alone.
	if err := r.h.EditChange(ctx, pr.Number, ChangeEdit{Title: &t, Body: &b}); err != nil {
		return err
	}
	r.record(g.Branch, pr, t)
	r.res.Updated = append(r.res.Updated, g.Branch)
	r.log.Info("updated pull request", "number", pr.Number, "title", t)
	return nil
}

func (r *runner) decorate(ctx context.Context, g group, pr *Change) error {
	if r.o.Meta == nil {
		return nil
	}
	// Every update's labels and reviewers; auto-merge only when every
	// update in the PR may, by its own policy.
	var m Meta
	merge := true
	for _, u := range g.Updates {
		um := r.o.Meta(u)
		m.Labels = appendNew(m.Labels, um.Labels...)
		m.Reviewers = appendNew(m.Reviewers, um.Reviewers...)
		if !slices.Contains(um.Automerge, u.Type) {
			merge = false
		}
		m.Automerge = appendNew(m.Automerge, um.Automerge...)
	}
	if len(m.Labels) > 0 {
		if err := r.h.Label(ctx, pr.Number, m.Labels); err != nil {
			return err
		}
	}
	if len(m.Reviewers) > 0 {
		if err := r.h.RequestReviewers(ctx, pr.Number, m.Reviewers); err != nil {
			return err
		}
	}
	if merge && len(m.Automerge) > 0 {
		if err := r.h.EnableAutoMerge(ctx, pr); err != nil {
			r.log.Warn("auto-merge not enabled", "number", pr.Number, "err", err)
		}
	}
	return nil
}

// foreign leaves a branch alone that has commits imagebot did not make, and
// says so on its PR once.
func (r *runner) foreign(ctx context.Context, g group, pr *Change, tip *object.Commit) error {
	r.res.Foreign = append(r.res.Foreign, g.Branch)
	if pr != nil {
		r.record(g.Branch, pr, pr.Title)
	}
	r.log.Warn("branch has commits imagebot did not make; leaving it alone", "branch", g.Branch)
	if pr == nil || r.o.DryRun {
		return nil
	}
	mark := fmt.Sprintf("<!-- imagebot:foreign %s -->", tip.Hash)
	id, err := r.h.WhoAmI(ctx)
	if err != nil {
		return err
	}
	if done, err := r.h.Commented(ctx, pr.Number, mark, r.byBot(id)); err != nil || done {
		return err
	}
	if r.limited {
		return errRateLimited
	}
	return r.h.Comment(ctx, pr.Number, r.words(fmt.Sprintf(
		"This branch has commits that imagebot did not make, so imagebot will not push to it. "+
			"It would now propose: %s. The branch is yours: merge it as it is, or close this pull request "+
			"and delete the branch, and imagebot proposes the next newer version.\n\n%s", tame(title(g)), mark)))
}

// blockedError is a branch of the bot's whose PR the host will not open
// because someone else's PR from it into the default branch is open (the
// host allows one): that PR is left alone, and the run reports it.
type blockedError struct {
	what, number string // in the host's words: pull request #12, merge request !12
	author       string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("%s %s from this branch was opened by %q, not by imagebot: imagebot leaves it alone, "+
		"and opens its own once it is closed", e.what, e.number, e.author)
}

// blocked records pr, someone else's, as what keeps branch's PR from
// opening.
func (r *runner) blocked(branch string, pr *Change) error {
	r.log.Warn("someone else's pull request from the bot's branch keeps it from opening its own; leaving it alone",
		"branch", branch, "number", pr.Number, "author", pr.Author)
	return &blockedError{what: r.words("pull request"), number: r.num(pr.Number), author: pr.Author}
}

// closeObsolete closes imagebot's open PRs that the plan no longer needs:
// the update was made by hand, or the image left the repository. A PR whose
// image could not be looked up this run is kept: absence of evidence.
func (r *runner) closeObsolete(ctx context.Context, p *plan.Plan, handled map[string]bool) {
	failing := map[string]bool{}
	for _, pr := range p.Problems {
		if pr.Failed {
			failing[pr.Image] = true
		}
	}
	held := heldImages(p)
	for branch, pr := range r.open {
		if handled[branch] {
			continue
		}
		m, ok := prMarker(pr)
		if !ok || m.Kind == plan.KindRollback || slices.ContainsFunc(m.images(), func(img string) bool {
			return failing[img] || (held[img] && m.Kind != plan.KindPrepull)
		}) {
			// A rollback is a person's request, which no plan repeats;
			// an image waiting for its pre-pull keeps its older PR until
			// the newer rollout can take its branch.
			continue
		}
		if tip := r.rm.branchTip(branch); tip != nil && !r.ours(tip) {
			// A person's commits are on it: closing would delete them.
			r.record(branch, pr, pr.Title)
			r.res.Foreign = append(r.res.Foreign, branch)
			r.log.Warn("branch has commits imagebot did not make; not closing it", "branch", branch)
			continue
		}
		if r.limited {
			r.res.RateLimited = append(r.res.RateLimited, branch)
			continue
		}
		if r.o.DryRun {
			r.record(branch, pr, pr.Title)
			r.res.Closed = append(r.res.Closed, branch)
			fmt.Fprint(r.o.Out, r.words(fmt.Sprintf("would close pull request %s %q: no longer needed\n\n", r.num(pr.Number), pr.Title)))
			continue
		}
		comment := r.words(obsoleteComment(m, r.base))
		if by := r.carrier(m, branch); by != "" {
			comment = r.words(r.supersededComment(by))
		}
		err := r.h.Comment(ctx, pr.Number, comment)
		if err == nil {
			err = r.h.EditChange(ctx, pr.Number, ChangeEdit{Close: true})
		}
		if err == nil {
			err = r.h.DeleteBranch(ctx, branch)
		}
		switch {
		case isRateLimit(err):
			r.limit(err)
			r.res.RateLimited = append(r.res.RateLimited, branch)
		case err != nil:
			r.res.Failed = append(r.res.Failed, fmt.Errorf("%s: close: %w", branch, err))
		default:
			r.record(branch, pr, pr.Title)
			r.res.Closed = append(r.res.Closed, branch)
		}
	}
}

// record keeps a branch's PR, with the title it has now, for Result.
func (r *runner) record(branch string, pr *Change, title string) {
	if r.res.PullRequests == nil {
		r.res.PullRequests = map[string]PullRequest{}
	}
	r.res.PullRequests[branch] = PullRequest{Number: pr.Number, URL: pr.URL, Title: title}
}

// report prints what a dry run would push.
func (r *runner) report(g group, files map[string][]byte) {
	fmt.Fprintf(r.o.Out, "--- %s\n%s\n%s\n", g.Branch, title(g), r.words(body(g)))
	for _, f := range sortedKeys(files) {
		before, _ := fileAt(r.tip, f)
		r.o.Out.Write(diff.Diff("a/"+f, before, "b/"+f, files[f]))
	}
	fmt.Fprintln(r.o.Out)
}

// details fills in what the registry says about each new image, once.
func (r *runner) details(ctx context.Context, g group) group {
	if r.o.Details == nil {
		return g
	}
	infos := make([]*registry.Info, len(g.Updates))
	ups, cloned := g.Updates, false
	for i, u := range g.Updates {
		if u.Chart != nil {
			// A chart's PR says what its index says (chartNotes), or
			// for an OCI chart what its config blob says.
			if c := r.ociChart(ctx, u); c != nil {
				if !cloned {
					ups, cloned = slices.Clone(g.Updates), true // the plan's own stay as they are
				}
				ups[i].Chart = c
			}
			continue
		}
		if u.Kind == plan.KindGitTag {
			continue // a git tag has no image to describe (issue 28)
		}
		if infos[i] = g.info(i); infos[i] != nil {
			continue
		}
		info, err := r.o.Details(ctx, u.Repo.Tag(u.To))
		if err != nil {
			r.log.Warn("image details unavailable", "image", u.Image, "tag", u.To, "err", err)
			continue
		}
		infos[i] = info
	}
	g.Infos, g.Updates = infos, ups
	return g
}

// heldImages are the images whose rollout waits for a pre-pull: their open
// PRs stay until the rollout is due.
func heldImages(p *plan.Plan) map[string]bool {
	held := map[string]bool{}
	for _, u := range p.Updates {
		if u.Kind == plan.KindPrepull {
			held[u.Image] = true
		}
	}
	for _, n := range p.Notices {
		if n.Reason == plan.ReasonPrepulling {
			held[n.Image] = true
		}
	}
	return held
}

// obsoleteComment says why imagebot closes one of its PRs.
func obsoleteComment(m marker, base string) string {
	var names []string
	for _, img := range m.images() {
		names = append(names, word(img))
	}
	imgs := clip(strings.Join(names, ", "), 4<<10)
	switch m.Kind {
	case plan.KindPromotion:
		return fmt.Sprintf("%s no longer has this version to promote for %s: the environment it is promoted from moved back "+
			"to an earlier version, or %s has it already, so imagebot withdraws this promotion.", lit(m.Env), imgs, lit(base))
	case plan.KindPrepull:
		return fmt.Sprintf("Nothing is left to pre-pull on %s (the images are there, or their updates are gone), so imagebot closes this.", lit(base))
	}
	return fmt.Sprintf("%s no longer needs this update on %s (it was made there, or the image is gone), so imagebot closes it.", imgs, lit(base))
}

// appendNew appends what list lacks.
func appendNew(list []string, more ...string) []string {
	for _, s := range more {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
