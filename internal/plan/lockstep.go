package plan

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// Group is a config group as the plan sees it: its name, and whether its
// members move to one tag together.
type Group struct {
	Name     string
	Lockstep bool
}

// locksteps holds back the images of lockstep groups until every image has
// been looked up: the tag a group moves to depends on all its members'
// listings. Other images are decided at once.
type locksteps struct {
	group func(string) Group
	mu    sync.Mutex
	held  map[string][]*image // by group name
	early map[string]decision // notices and problems found while looking up
}

func newLocksteps(opts Options) *locksteps {
	return &locksteps{group: opts.Group, held: map[string][]*image{}, early: map[string]decision{}}
}

// decide decides an image, or looks it up and holds it for finish when it
// belongs to a lockstep group.
func (l *locksteps) decide(ctx context.Context, refs []scan.Ref, opts Options) decision {
	img := refs[0].Image
	if l.group == nil || !l.group(img).Lockstep {
		return decideImage(ctx, refs, opts)
	}
	name := l.group(img).Name
	im, out := prepare(ctx, refs, opts)
	l.mu.Lock()
	defer l.mu.Unlock()
	if im == nil {
		// Nothing to move (skipped, promoted, a failed lookup): the group
		// decides without it, but a failed lookup holds everyone back.
		if len(out.problems) > 0 {
			l.held[name] = append(l.held[name], &image{d: decider{img: img}})
		}
		return out
	}
	l.held[name] = append(l.held[name], im)
	return out
}

// member is one image:tag of a lockstep group that can take part: its
// policy reads a version from the tag.
type member struct {
	im    *image
	tag   string
	cands []string // newer tags, best first
}

// has reports whether the member could be at tag: it is, or may move there.
func (m member) has(tag string) bool { return m.tag == tag || slices.Contains(m.cands, tag) }

func (m member) String() string { return m.im.d.img + ":" + m.tag }

// finish decides each lockstep group: every member moves to the best tag
// that every member has and may move to, in one step; a newer release that
// only some members have waits, and says which lack it.
func (l *locksteps) finish(ctx context.Context) decision {
	var out decision
	names := make([]string, 0, len(l.held))
	for n := range l.held {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		ims := l.held[name]
		slices.SortFunc(ims, func(a, b *image) int { return cmp.Compare(a.d.img, b.d.img) })
		dec := decideGroup(ctx, name, ims)
		out.updates = append(out.updates, dec.updates...)
		out.notices = append(out.notices, dec.notices...)
		out.problems = append(out.problems, dec.problems...)
	}
	return out
}

func decideGroup(ctx context.Context, name string, ims []*image) decision {
	out := decideMembers(ctx, name, ims)
	// Digest-only references are checked as decideImage checks them.
	for _, im := range ims {
		if im.d.idx != nil {
			out.problems = append(out.problems, im.d.danglingDigests(im.digestOnly)...)
		}
	}
	return out
}

// decideMembers chooses the group's tag and moves every member there.
func decideMembers(ctx context.Context, name string, ims []*image) decision {
	var out decision
	var members []member
	var failed []string
	for _, im := range ims {
		if im.d.idx == nil {
			failed = append(failed, im.d.img)
			continue
		}
		for _, tag := range im.tags {
			cur := cmp.Or(tag, "latest")
			dec, err := im.d.idx.Decide(cur)
			if err != nil || dec.Reason == policy.ReasonFloating || dec.Reason == policy.ReasonNoVersion {
				// Not a version the group can hold: decided on its own
				// terms, which say why it stays.
				_, notes, probs := im.d.decide(tag, im.byTag[tag])
				out.notices = append(out.notices, notes...)
				out.problems = append(out.problems, probs...)
				continue
			}
			members = append(members, member{im: im, tag: tag, cands: dec.Candidates})
		}
	}
	if len(members) == 0 {
		return out
	}
	if len(failed) > 0 {
		why := fmt.Sprintf("lockstep group %s waits: the lookup of %s failed, so no tag is known to be common to every member", name, strings.Join(failed, ", "))
		for _, m := range members {
			out.notices = append(out.notices, notices(m.im.byTag[m.tag], ReasonLockstep, why)...)
		}
		return out
	}
	target := common(members)
	waits := waiting(name, members, target)
	if target == "" {
		why := fmt.Sprintf("lockstep group %s has no tag that every member has", name)
		if waits != "" {
			why = waits
		}
		for _, m := range members {
			out.notices = append(out.notices, notices(m.im.byTag[m.tag], ReasonLockstep, why)...)
		}
		return out
	}
	// separateMajorMinor: the group's second pull request moves every
	// member to the best tag within its current major that all have.
	inTarget := ""
	if members[0].im.d.separate {
		within := make([]member, len(members))
		for i, m := range members {
			within[i] = m
			within[i].cands = slices.DeleteFunc(slices.Clone(m.cands), func(c string) bool { return policy.Type(m.tag, c) == "major" })
		}
		inTarget = common(within)
	}
	said := false // the waiting release is said once, on the group's first update
	var stuck []string
	for _, m := range members {
		d := m.im.d
		d.ctx, d.only = ctx, target
		up, notes, probs := d.decide(m.tag, m.im.byTag[m.tag])
		for i := range notes {
			if waits != "" && notes[i].Reason == ReasonUpToDate {
				notes[i].Reason, notes[i].Detail = ReasonLockstep, waits
			}
		}
		out.notices = append(out.notices, notes...)
		out.problems = append(out.problems, probs...)
		if m.tag != target && (up == nil || up.To != target) {
			stuck = append(stuck, m.String())
		}
		if up != nil {
			if !said && waits != "" {
				up.Notice, said = joinNotes(up.Notice, waits), true
			}
			if inTarget != "" && inTarget != target {
				up.Minor = d.inMajor(m.tag, m.im.byTag[m.tag], *up, inTarget)
			}
			out.updates = merge(out.updates, *up)
		}
	}
	if len(stuck) > 0 {
		// A gate held the group's tag back for some member: the others
		// wait too, or the group would no longer share one tag.
		why := fmt.Sprintf("lockstep group %s: %s waits, since %s cannot move there yet", name, target, strings.Join(stuck, ", "))
		for _, u := range out.updates {
			for _, c := range u.Changes {
				out.notices = append(out.notices, notice(c.Ref, ReasonLockstep, why))
			}
		}
		out.updates = nil
	}
	return out
}

// common is the best tag that every member is at or may move to, in the
// order of the first member's policy (its candidates, then its own tag),
// or "" when there is none.
func common(members []member) string {
	first := members[0]
	for _, t := range append(slices.Clone(first.cands), first.tag) {
		if !slices.ContainsFunc(members, func(m member) bool { return !m.has(t) }) {
			return t
		}
	}
	return ""
}

// waiting says which newer releases wait because some members lack them:
// "lockstep group openstack: 2024.2 waits for quay.io/kolla/nova, which
// lacks it". It is "" when every member's best tag is the target.
func waiting(name string, members []member, target string) string {
	var parts []string
	seen := map[string]bool{}
	for _, m := range members {
		if len(m.cands) == 0 || m.cands[0] == target || seen[m.cands[0]] {
			continue
		}
		best := m.cands[0]
		seen[best] = true
		var lack []string
		for _, o := range members {
			if !o.has(best) && !slices.Contains(lack, o.im.d.img) {
				lack = append(lack, o.im.d.img)
			}
		}
		if len(lack) > 0 {
			parts = append(parts, fmt.Sprintf("%s waits for %s, which %s it", best, strings.Join(lack, ", "), lacks(len(lack))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "lockstep group " + name + ": " + strings.Join(parts, "; ")
}

func lacks(n int) string {
	if n == 1 {
		return "lacks"
	}
	return "lack"
}

// restrict keeps only the candidate a lockstep group chose.
func restrict(dec policy.Decision, only string) policy.Decision {
	if slices.Contains(dec.Candidates, only) {
		dec.Candidates = []string{only}
		return dec
	}
	if len(dec.Candidates) > 0 {
		dec.Candidates, dec.Reason, dec.Detail = nil, ReasonUpToDate, ""
	}
	return dec
}

// withoutPromoted leaves alone the references of environments that are
// promoted into, with a notice naming where their versions come from.
func withoutPromoted(refs []scan.Ref, promoted func(string) (string, string)) ([]scan.Ref, []Notice) {
	if promoted == nil {
		return refs, nil
	}
	var keep []scan.Ref
	var out []Notice
	for _, r := range refs {
		env, from := promoted(r.File)
		if from == "" {
			keep = append(keep, r)
			continue
		}
		out = append(out, notice(r, ReasonPromoted, fmt.Sprintf("%s takes its versions from %s, once they soaked there (imagebot run decides, from the default branch's history)", env, from)))
	}
	return keep, out
}
