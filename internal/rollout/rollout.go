package rollout

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// Options are what Apply decides with.
type Options struct {
	Config *config.Config
	// History is the default branch the plan was made from; Statuses the
	// statuses of its commits (nil: none can be read, so a requireStatus
	// never passes).
	History  History
	Statuses Statuses
	// Tip is the tree of History's tip, which the plan was made from: the
	// pre-pull DaemonSet is read from it.
	Tip fs.FS
	// Registry resolves the digest of a promoted version for references
	// that carry one.
	Registry plan.Registry
	// Policy orders an image's tags (a promotion only moves forward; a
	// move to a lower version in the source environment is a rollback).
	Policy func(image string) (*policy.Policy, error)
	// Now is the time of the run: soak and lead are measured up to it.
	Now time.Time
	// Helper is the image whose static binary the pre-pull containers run.
	Helper string
	Logger *slog.Logger
}

// Bounds of the history walks: a run ends in bounded time whatever the
// length of the history.
const (
	// maxCommits is how many first-parent commits one walk looks at.
	maxCommits = 2000
	// maxSegments is how many successive versions of one image in the
	// source environment a promotion looks back through.
	maxSegments = 20
)

// MaxCommits is the bound History implementations are to walk to.
const MaxCommits = maxCommits

// Apply turns a plan built with plan.Options.Promoted and Group set into
// the plan to run: promotions that are due join it as updates of kind
// promotion, and updates of images to pre-pull are staged (the pre-pull
// first, the rollout once the pre-pull has been on the default branch for
// the lead). refs are the references of the tip the plan was made from.
// Only a canceled ctx is an error; a history or status that cannot be read
// becomes a problem of the references it concerns.
func Apply(ctx context.Context, p *plan.Plan, refs []scan.Ref, o Options) error {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	a := &applier{o: o, p: p, cfg: o.Config, statusCache: map[string]map[string]string{}}
	for _, e := range o.Config.Environments {
		if e.PromoteFrom != "" {
			a.promote(ctx, e, refs)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.Config.Prepull != nil {
		a.prepull(ctx)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a.p.Sort()
	return nil
}

type applier struct {
	o           Options
	cfg         *config.Config
	p           *plan.Plan
	statusCache map[string]map[string]string
}

// envOf names the environment of a file, "" for none.
func (a *applier) envOf(file string) string {
	if e := a.cfg.EnvironmentFor(file); e != nil {
		return e.Name
	}
	return ""
}

// statuses checks the required contexts on c: ok when each is "success".
// detail names each with its state, for the PR body or a notice.
func (a *applier) statuses(ctx context.Context, c Commit, required []string) (ok bool, detail string, err error) {
	if len(required) == 0 {
		return true, "", nil
	}
	got, cached := a.statusCache[c.Hash]
	if !cached {
		if a.o.Statuses == nil {
			return false, "no commit statuses can be read (no GitHub connection)", nil
		}
		if got, err = a.o.Statuses.Statuses(ctx, c.Hash); err != nil {
			return false, "", fmt.Errorf("statuses of %s: %w", c.Short(), err)
		}
		a.statusCache[c.Hash] = got
	}
	ok = true
	var parts []string
	for _, name := range required {
		state, reported := got[name]
		switch {
		case !reported:
			ok = false
			parts = append(parts, fmt.Sprintf("`%s` has not reported", name))
		case state != "success":
			ok = false
			parts = append(parts, fmt.Sprintf("`%s` is %s", name, state))
		default:
			parts = append(parts, fmt.Sprintf("`%s` success", name))
		}
	}
	return ok, strings.Join(parts, ", "), nil
}

// newer reports whether to is a newer version of img than from, by img's
// policy; known is false when the policy cannot order them.
func (a *applier) newer(img, from, to string) (newer, known bool) {
	if from == to {
		return false, true
	}
	if a.o.Policy == nil {
		return false, false
	}
	pol, err := a.o.Policy(img)
	if err != nil {
		return false, false
	}
	order := pol.PinCandidates([]string{from, to})
	if len(order) != 2 {
		return false, false
	}
	return order[0] == to, true
}

// noticeFor finds the plan's notice of a reference.
func (a *applier) noticeFor(r scan.Ref) *plan.Notice {
	for i := range a.p.Notices {
		if n := &a.p.Notices[i]; isNoticeOf(*n, r) {
			return n
		}
	}
	return nil
}

// dropNotices removes the notices of references that became locations.
func (a *applier) dropNotices(refs []scan.Ref) {
	a.p.Notices = slices.DeleteFunc(a.p.Notices, func(n plan.Notice) bool {
		return slices.ContainsFunc(refs, func(r scan.Ref) bool { return isNoticeOf(n, r) })
	})
}

// isNoticeOf reports whether n is the notice the plan left on r.
func isNoticeOf(n plan.Notice, r scan.Ref) bool {
	return n.File == r.File && n.Line == r.Line && n.Image == r.Image && n.Tag == r.Tag
}

// problem reports a lookup that failed for refs.
func (a *applier) problem(refs []scan.Ref, format string, args ...any) {
	r := refs[0]
	a.p.Problems = append(a.p.Problems, plan.Problem{File: r.File, Line: r.Line, Message: fmt.Sprintf(format, args...), Failed: true, Image: r.Image})
}

// span writes a duration as a person would: "24h", "30m", "3d", "1h30m".
func span(d time.Duration) string {
	if d >= 48*time.Hour && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "" {
		return "0s"
	}
	return s
}
