package rollout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// streamKey is one image stream an environment is promoted in.
type streamKey struct{ img, fam string }

// segment is a stretch of history in which the source environment held one
// value of a stream: from the commit that brought it (start; since is its
// time) until the commit that replaced it (end), or now.
type segment struct {
	val   value
	start Commit
	since time.Time
	end   time.Time
	// beyond: the walk ended before finding the commit that brought it;
	// it has held since before `since` at least.
	beyond bool
}

// timeline is one stream's history in the source environment, walked back
// until the version to promote is known.
type timeline struct {
	key      streamKey
	refs     []scan.Ref // the references in the environment promoted into
	cur      value      // the value before the segments found so far
	end      time.Time  // when cur was replaced
	segs     []segment  // newest first
	done     bool
	proposal *proposal
	why      string // why the newest version is not (yet) promoted
	problem  error
}

type proposal struct {
	v        version
	evidence []string
}

// promote adds the promotions into env that are due, and says for the
// references that stay why they do.
func (a *applier) promote(ctx context.Context, env config.Environment, refs []scan.Ref) {
	var eRefs []scan.Ref
	for _, r := range refs {
		if r.Tag == "" || a.envOf(r.File) != env.Name {
			continue
		}
		// The plan left these for the promotion; a skipped image, or a
		// reference the plan could not read, keeps its own notice.
		if n := a.noticeFor(r); n != nil && n.Reason == plan.ReasonPromoted {
			eRefs = append(eRefs, r)
		}
	}
	if len(eRefs) == 0 {
		return
	}
	src := env.PromoteFrom
	want := func(f string) bool { return a.cfg.Included(f) && a.envOf(f) == src }
	st := refFiles(refs, want)
	var tls []*timeline
	byKey := map[streamKey]*timeline{}
	for _, r := range eRefs {
		k := streamKey{r.Image, family(r.Tag)}
		if tl := byKey[k]; tl != nil {
			tl.refs = append(tl.refs, r)
			continue
		}
		tl := &timeline{key: k, refs: []scan.Ref{r}, cur: valueOf(st, k.img, k.fam), end: a.o.Now}
		switch {
		case len(tl.cur) == 0:
			tl.done, tl.why = true, fmt.Sprintf("%s has no reference to %s%s to promote", src, k.img, famNote(k.fam))
		case len(tl.cur) > 1:
			tl.done, tl.why = true, fmt.Sprintf("%s holds %s at several versions (%s): nothing is promoted until they agree", src, k.img, tl.cur)
		}
		byKey[k] = tl
		tls = append(tls, tl)
	}
	a.walk(ctx, env, st, want, tls)
	var made []plan.Update
	for _, tl := range tls {
		made = append(made, a.promoteStream(ctx, env, tl)...)
	}
	a.holdLockstep(env, eRefs, made)
}

// walk goes back through the source environment's history until every
// timeline knows what to promote, or that nothing is.
func (a *applier) walk(ctx context.Context, env config.Environment, st *files[[]scan.Ref], want func(string) bool, tls []*timeline) {
	open := func() bool { return slices.ContainsFunc(tls, func(tl *timeline) bool { return !tl.done }) }
	if !open() {
		return
	}
	err := a.o.History.Changes(ctx, want, func(ch Change) bool {
		st.back(ch)
		for _, tl := range tls {
			if tl.done {
				continue
			}
			prev := valueOf(st, tl.key.img, tl.key.fam)
			if prev.key() == tl.cur.key() {
				continue
			}
			tl.segs = append(tl.segs, segment{val: tl.cur, start: ch.Commit, since: ch.Time, end: tl.end})
			tl.cur, tl.end = prev, ch.Time
			a.judge(ctx, env, tl)
		}
		return open()
	})
	var trunc *TruncatedError
	switch {
	case errors.As(err, &trunc):
		for _, tl := range tls {
			if !tl.done {
				tl.segs = append(tl.segs, segment{val: tl.cur, since: trunc.Oldest.Time, end: tl.end, beyond: true})
				a.judge(ctx, env, tl)
			}
		}
	case err != nil:
		for _, tl := range tls {
			if !tl.done {
				tl.done, tl.problem = true, fmt.Errorf("history of %s: %w", env.PromoteFrom, err)
			}
		}
	}
	for _, tl := range tls {
		tl.done = true // the rest never held a version that soaked
	}
}

// judge looks at a timeline's oldest segment found so far: the version to
// promote is the newest that soaked with its statuses successful, going
// back only through upgrades. A move back in the source environment (a
// rollback there) withdraws the promotion.
func (a *applier) judge(ctx context.Context, env config.Environment, tl *timeline) {
	src, i := env.PromoteFrom, len(tl.segs)-1
	seg := tl.segs[i]
	if len(seg.val) != 1 || i >= maxSegments {
		tl.done = true
		return
	}
	v := seg.val[0]
	if i > 0 {
		next := tl.segs[i-1].val[0]
		if next.Tag != v.Tag {
			if up, known := a.newer(tl.key.img, v.Tag, next.Tag); known && !up {
				tl.done = true
				tl.why = fmt.Sprintf("%s moved %s back from %s to %s on %s (commit %s): the promotion is withdrawn until a version soaks again",
					src, tl.key.img, v, next, timefmt.Stamp(tl.segs[i-1].since), tl.segs[i-1].start.Short())
				return
			}
		}
	}
	soak := time.Duration(env.Soak)
	in := fmt.Sprintf("%s has been in %s since %s (commit %s)", v, src, timefmt.Stamp(seg.since), seg.start.Short())
	if i > 0 {
		in = fmt.Sprintf("%s was in %s from %s (commit %s) until %s", v, src, timefmt.Stamp(seg.since), seg.start.Short(), timefmt.Stamp(seg.end))
	}
	if seg.beyond {
		in = fmt.Sprintf("%s has been in %s since before %s (the oldest of %d commits looked at)", v, src, timefmt.Stamp(seg.since), maxCommits)
	}
	if seg.end.Sub(seg.since) < soak {
		if i == 0 {
			tl.why = fmt.Sprintf("%s; it soaks until %s", in, timefmt.Stamp(seg.since.Add(soak)))
		}
		return
	}
	if seg.beyond && len(env.RequireStatus) > 0 {
		tl.done = true
		tl.why = cmp.Or(tl.why, in+": the commit that brought it is further back, so its statuses cannot be checked")
		return
	}
	ok, detail, err := a.statuses(ctx, seg.start, env.RequireStatus)
	if err != nil {
		tl.done, tl.problem = true, err
		return
	}
	if !ok {
		tl.why = cmp.Or(tl.why, in+", but "+detail)
		return
	}
	tl.done = true
	ev := fmt.Sprintf("`%s` %s", v, strings.TrimPrefix(in, v.String()+" "))
	ev = strings.Replace(ev, " in "+src, " in **"+src+"**", 1)
	if soak > 0 {
		ev += ", longer than the soak of " + span(soak)
	}
	p := &proposal{v: v, evidence: []string{ev + "."}}
	if detail != "" {
		p.evidence = append(p.evidence, fmt.Sprintf("Statuses on commit `%s`: %s.", seg.start.Short(), detail))
	}
	tl.proposal = p
}

// promoteStream makes the updates of one stream's references in env.
func (a *applier) promoteStream(ctx context.Context, env config.Environment, tl *timeline) []plan.Update {
	krefs := tl.refs
	if tl.problem != nil {
		a.problem(krefs, "promotion of %s from %s: %v", tl.key.img, env.PromoteFrom, tl.problem)
		return nil
	}
	if tl.proposal == nil {
		why := cmp.Or(tl.why, fmt.Sprintf("no version of %s has soaked in %s", tl.key.img, env.PromoteFrom))
		for _, r := range krefs {
			a.setDetail(r, why)
		}
		return nil
	}
	v := tl.proposal.v
	byFrom := map[string][]scan.Ref{}
	var froms []string
	for _, r := range krefs {
		if r.Tag == v.Tag && (r.Digest == "" || v.Digest == "" || r.Digest == v.Digest) {
			a.setDetail(r, cmp.Or(tl.why, fmt.Sprintf("at %s, the version that soaked in %s", v, env.PromoteFrom)))
			continue
		}
		if up, known := a.newer(r.Image, r.Tag, v.Tag); r.Tag != v.Tag && known && !up {
			a.setDetail(r, fmt.Sprintf("%s soaked in %s, which is not newer than %s: a promotion never moves back (imagebot rollback does)", v, env.PromoteFrom, r.Tag))
			continue
		}
		if byFrom[r.Tag] == nil {
			froms = append(froms, r.Tag)
		}
		byFrom[r.Tag] = append(byFrom[r.Tag], r)
	}
	slices.Sort(froms)
	var out []plan.Update
	for _, from := range froms {
		rs := byFrom[from]
		digest := ""
		if slices.ContainsFunc(rs, func(r scan.Ref) bool { return r.Digest != "" }) {
			digest = v.Digest
			if digest == "" {
				d, err := a.o.Registry.Digest(ctx, rs[0].Repo.Tag(v.Tag))
				if err != nil {
					a.problem(rs, "promotion of %s: digest of %s: %v", tl.key.img, v.Tag, err)
					continue
				}
				digest = d
			}
		}
		up := plan.Update{
			Image: tl.key.img, Repo: rs[0].Repo, From: from, To: v.Tag, Type: policy.Type(from, v.Tag),
			Kind: plan.KindPromotion, Environment: env.Name, Grounds: tl.proposal.evidence,
		}
		if g := a.cfg.GroupFor(tl.key.img); g != nil {
			up.Group = g.Name
		}
		if tl.why != "" {
			up.Notice = tl.why
		}
		for _, r := range rs {
			c := plan.Change{Ref: r}
			if r.Tag != v.Tag {
				c.Tag = v.Tag
			}
			if r.Digest != "" && r.Digest != digest {
				c.Digest = digest
				up.Digest = digest
			}
			up.Changes = append(up.Changes, c)
			up.Locations = append(up.Locations, r.Location)
		}
		a.dropNotices(rs)
		out = append(out, up)
	}
	a.p.Updates = append(a.p.Updates, out...)
	return out
}

// holdLockstep keeps a lockstep group's promotion back until every member
// in env moves to, or is at, one tag.
func (a *applier) holdLockstep(env config.Environment, eRefs []scan.Ref, made []plan.Update) {
	for _, g := range a.cfg.Groups {
		if !g.Lockstep {
			continue
		}
		var ups []plan.Update
		tags := map[string]bool{}
		for _, u := range made {
			if u.Group == g.Name {
				ups = append(ups, u)
				tags[u.To] = true
			}
		}
		if len(ups) == 0 {
			continue
		}
		var members []scan.Ref
		for _, r := range eRefs {
			if gr := a.cfg.GroupFor(r.Image); gr != nil && gr.Name == g.Name {
				members = append(members, r)
				if a.noticeFor(r) != nil {
					tags[r.Tag] = true // stays where it is
				}
			}
		}
		if len(tags) == 1 {
			continue
		}
		why := fmt.Sprintf("lockstep group %s: the promotion to %s waits until every member has soaked one tag in %s", g.Name, env.Name, env.PromoteFrom)
		a.p.Updates = slices.DeleteFunc(a.p.Updates, func(u plan.Update) bool {
			return u.Kind == plan.KindPromotion && u.Environment == env.Name && u.Group == g.Name
		})
		for _, r := range members {
			if n := a.noticeFor(r); n != nil {
				n.Detail = why + "; " + n.Detail
				continue
			}
			a.p.Notices = append(a.p.Notices, plan.Notice{File: r.File, Line: r.Line, Image: r.Image, Tag: r.Tag, Reason: plan.ReasonPromoted, Detail: why})
		}
	}
}

// setDetail says why a promoted reference stays.
func (a *applier) setDetail(r scan.Ref, why string) {
	if n := a.noticeFor(r); n != nil {
		n.Detail = why
	}
}

func famNote(fam string) string {
	if fam == "" {
		return ""
	}
	return " (" + fam + ")"
}
