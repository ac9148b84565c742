package plan

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// decision is what one image comes to: updates, references left alone,
// and problems.
type decision struct {
	updates  []Update
	notices  []Notice
	problems []Problem
}

// decideImage decides every reference to one image (refs share one
// repository and one policy scope). Lookup failures become problems marked Failed, so one bad
// image never stops the others; every other reference ends as an update's
// location or as a notice.
func decideImage(ctx context.Context, refs []scan.Ref, opts Options) decision {
	im, out := prepare(ctx, refs, opts)
	if im == nil {
		return out
	}
	for _, tag := range im.tags {
		up, notes, probs := im.d.decide(tag, im.byTag[tag])
		out.notices = append(out.notices, notes...)
		out.problems = append(out.problems, probs...)
		if up != nil {
			if im.d.separate {
				up.Minor = im.d.inMajor(tag, im.byTag[tag], *up, "")
			}
			out.updates = merge(out.updates, *up)
		}
	}
	// After the tags: a digest one of them resolved to exists for free.
	out.problems = append(out.problems, im.d.danglingDigests(im.digestOnly)...)
	return out
}

// image is one image ready to decide: its listing read, its references
// with a tag (or to pin) by tag.
type image struct {
	d          decider
	byTag      map[string][]scan.Ref
	tags       []string // sorted
	digestOnly []scan.Ref
}

// prepare looks the image up once and sorts out the references that need
// no listing. It returns nil when nothing is left to decide; the decision
// holds the notices and problems so far.
func prepare(ctx context.Context, refs []scan.Ref, opts Options) (*image, decision) {
	var out decision
	// The references share one policy scope: any file of theirs names it.
	img, repo, file := refs[0].Image, refs[0].Repo, refs[0].File
	pol, err := opts.Policy(img, file)
	if err != nil {
		out.problems = []Problem{problemAt(refs, false, "policy for %s: %v", img, err)}
		return nil, out
	}
	if pol.Skip() {
		out.notices = notices(refs, ReasonSkipped, "skip: true")
		return nil, out
	}
	refs, out.notices = withoutPromoted(refs, opts.Promoted)
	byTag := map[string][]scan.Ref{}
	var tags []string
	var digestOnly []scan.Ref
	for _, r := range refs {
		switch {
		case r.Tag == "" && r.Digest != "":
			out.notices = append(out.notices, notice(r, ReasonDigestOnly, "no tag to compare; the digest is kept"))
			digestOnly = append(digestOnly, r)
			continue
		case r.Tag == "" && pol.Pin() != "tag":
			out.notices = append(out.notices, notice(r, ReasonNoTag, "Kubernetes pulls latest; pin: tag turns it into a version"))
			continue
		}
		if _, ok := byTag[r.Tag]; !ok {
			tags = append(tags, r.Tag)
		}
		byTag[r.Tag] = append(byTag[r.Tag], r)
	}
	d := decider{ctx: ctx, img: img, repo: repo, pol: pol, reg: opts.Registry, insp: opts.Inspector, spec: opts.gates(img, file), now: opts.now, seen: opts.seen, separate: opts.SeparateMajorMinor, builds: opts.Builds}
	if len(tags) == 0 {
		out.problems = append(out.problems, d.danglingDigests(digestOnly)...)
		return nil, out
	}
	listing, err := opts.Registry.Tags(ctx, repo)
	if err != nil {
		out.problems = append(out.problems, problemAt(refs, true, "look up %s (%s): %v", img, count(len(refs), "reference"), err))
		return nil, out
	}
	slices.Sort(tags)
	// The listing is read once for every tag of the image.
	d.idx = pol.Index(listing)
	return &image{d: d, byTag: byTag, tags: tags, digestOnly: digestOnly}, out
}

// merge adds up to ups, joining it with an update of the same move: an
// untagged reference and one tagged `latest` are the same update.
func merge(ups []Update, up Update) []Update {
	for i := range ups {
		if ups[i].Image == up.Image && ups[i].From == up.From && ups[i].To == up.To {
			ups[i] = join(ups[i], up)
			return ups
		}
	}
	return append(ups, up)
}

// join is one update of two of the same move, and of their updates
// within the major when they agree on it (else the first's).
func join(a, b Update) Update {
	a.Changes = append(slices.Clone(a.Changes), b.Changes...)
	a.Notice = cmp.Or(a.Notice, b.Notice)
	switch {
	case a.Minor != nil && b.Minor != nil && a.Minor.To == b.Minor.To:
		m := join(*a.Minor, *b.Minor)
		a.Minor = &m
	case a.Minor == nil:
		a.Minor = b.Minor
	}
	return a
}

// inMajor is, for a major update up of the references refs at tag from,
// the update to the newest version within from's major (only that tag,
// when set: a lockstep group's), or nil when there is none. Its notices
// and problems are the major decision's already.
func (d decider) inMajor(from string, refs []scan.Ref, up Update, only string) *Update {
	if up.Type != "major" {
		return nil
	}
	d.within, d.only = true, only
	m, _, _ := d.decide(from, refs)
	if m == nil || m.Type == "major" || m.To == up.To || m.Type == "digest" {
		return nil
	}
	return m
}

// withinMajor keeps the candidates in the current tag's major line.
func withinMajor(dec policy.Decision, current string) policy.Decision {
	var keep []string
	for _, c := range dec.Candidates {
		if policy.Type(current, c) != "major" {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 && len(dec.Candidates) > 0 {
		dec.Reason, dec.Detail = ReasonUpToDate, ""
	}
	dec.Candidates = keep
	return dec
}

type decider struct {
	ctx context.Context
	img string // repo as printed and as policies know it
	// repo is what the registry is asked with: the name the scan parsed.
	repo name.Repository
	pol  *policy.Policy
	idx  *policy.Index
	reg  Registry
	insp Inspector // nil: no gates, no digest checks
	spec gate.Spec
	now  time.Time
	seen *sightings // nil: no record of first sightings
	// builds keeps build times for order policies (nil: none kept).
	builds BuildTimes
	// only, when set, is the one tag the image may move to: the tag a
	// lockstep group chose for all its members.
	only string
	// within keeps the decision in the current tag's major line
	// (separateMajorMinor's second pull request).
	within bool
	// separate is Options.SeparateMajorMinor.
	separate bool
}

// decide picks the target of one image:tag and the changes to its
// references; the references it leaves alone get notices, and those the
// registry can no longer serve are problems.
func (d decider) decide(from string, refs []scan.Ref) (*Update, []Notice, []Problem) {
	current := cmp.Or(from, "latest")
	fail := func(format string, args ...any) (*Update, []Notice, []Problem) {
		return nil, nil, []Problem{problemAt(refs, true, format, args...)}
	}
	g := &gating{d: &d, current: current, pinned: pinnedDigest(refs)}
	var dec policy.Decision
	var order *Order
	var err error
	if d.pol.Order() != "" {
		dec, order, err = d.orderBuilds(current)
		// A tag the policy does not select is a notice; a registry that
		// could not date the builds, a failed lookup.
		if err != nil && order == nil {
			return nil, notices(refs, ReasonPattern, err.Error()), d.dangling(from, "", refs, nil)
		}
		if err != nil {
			return fail("order %s:%s: %v", d.img, current, err)
		}
	} else {
		dec, err = d.idx.Decide(current)
	}
	if err != nil {
		return nil, notices(refs, ReasonPattern, err.Error()), d.dangling(from, "", refs, nil)
	}
	if d.within {
		dec = withinMajor(dec, current)
	}
	if d.only != "" {
		dec = restrict(dec, d.only)
	}
	to, typ, note := current, "", ""
	var ev *gate.Evidence
	var held []string
	switch {
	case dec.Reason == policy.ReasonFloating && d.pol.Pin() == "tag":
		// The pinned tag names the image already running: no new image,
		// nothing for the gates to inspect.
		target, err := d.pin(current)
		if err != nil {
			return fail("pin %s:%s: %v", d.img, current, err)
		}
		if target == "" {
			return nil, nil, []Problem{problemAt(refs, false, "pin %s:%s: no versioned tag has the same digest", d.img, current)}
		}
		to, typ = target, "pin"
	case len(dec.Candidates) > 0 && !d.gated():
		to, typ, note = dec.Candidates[0], policy.Type(current, dec.Candidates[0]), dec.Detail
		if order != nil {
			typ = "build"
		}
	case len(dec.Candidates) > 0:
		p, err := g.choose(dec.Candidates)
		if err != nil {
			return fail("check gates of %s:%s: %v", d.img, current, err)
		}
		held = p.held
		if p.tag != "" {
			to, typ, note, ev = p.tag, policy.Type(current, p.tag), dec.Detail, p.ev
			if order != nil {
				typ = "build"
			}
		}
	}
	// Otherwise the tag stays; a digest written beside it (or asked for by
	// pin: digest) still follows it: nginx:stable@sha256:... keeps stable.

	digest, prob := d.digest(to, refs)
	if prob != nil {
		return nil, nil, []Problem{*prob}
	}
	resolved := ""
	if to == current {
		resolved = digest
	}
	changes, left := d.changes(from, to, digest, refs)
	if to == current && len(changes) > 0 && d.gated() {
		// A new digest under the same tag is a new image: the gates
		// apply, digestSettle too.
		dev, why, err := g.inspect(d.repo.Digest(digest), true)
		if err != nil {
			return fail("check gates of %s:%s@%s: %v", d.img, current, imagename.ShortDigest(digest), err)
		}
		if why != "" {
			held = append(held, fmt.Sprintf("%s (new digest %s): %s", current, imagename.ShortDigest(digest), why))
			left, changes = append(left, refsOf(changes)...), nil
		}
		ev = dev
	}
	moved := map[scan.Location]Change{}
	for _, c := range changes {
		moved[c.Ref.Location] = c
	}
	problems := d.dangling(from, resolved, refs, moved)
	var notes []Notice
	for _, r := range left {
		if len(held) > 0 {
			notes = append(notes, notice(r, ReasonHeld, heldDetail(held)))
		} else {
			notes = append(notes, d.leftAlone(r, dec))
		}
	}
	if len(changes) == 0 {
		return nil, notes, problems
	}
	if len(held) > 0 {
		note = joinNotes(note, "held back "+heldDetail(held))
	}
	up := &Update{Image: d.img, Repo: d.repo, From: from, To: to, Type: typ, Digest: digest, Notice: note, Evidence: ev, Changes: changes, Order: order}
	if from == "" {
		up.From = current
	}
	if to == current {
		up.Type = "digest"
	}
	if !slices.ContainsFunc(up.Changes, func(c Change) bool { return c.Digest != "" }) {
		up.Digest = "" // no reference of this update takes the digest
	}
	return up, notes, problems
}

// gated reports whether this image's policy asks for any gate.
func (d decider) gated() bool { return d.insp != nil && d.spec.Active() }

// changes splits refs into the changes that move them to tag `to` and
// digest, and the references that stay as they are.
func (d decider) changes(from, to, digest string, refs []scan.Ref) ([]Change, []scan.Ref) {
	var changes []Change
	var left []scan.Ref
	for _, r := range refs {
		c := Change{Ref: r}
		if to != from {
			c.Tag = to
		}
		if digest != "" && d.wantsDigest(r) && r.Digest != digest {
			c.Digest = digest
		}
		if c.Tag == "" && c.Digest == "" {
			left = append(left, r)
			continue
		}
		changes = append(changes, c)
	}
	return changes, left
}

func refsOf(changes []Change) []scan.Ref {
	out := make([]scan.Ref, len(changes))
	for i, c := range changes {
		out[i] = c.Ref
	}
	return out
}

// joinNotes joins the sentences of a notice.
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// wantsDigest reports whether r is to carry the new digest: it has one, or
// pin: digest asks for one and r has a place to put it. A `# imagebot: tag`
// marker has none, and plan lists only what apply can write.
func (d decider) wantsDigest(r scan.Ref) bool {
	return r.Digest != "" || (d.pol.Pin() == "digest" && r.DigestField.OK)
}

// digest looks up to's digest, only where a reference writes one: a plan
// of plain tags costs no manifest request. A tag gone from the listing is
// not looked up: the dangling check reports it.
func (d decider) digest(to string, refs []scan.Ref) (string, *Problem) {
	if !slices.ContainsFunc(refs, d.wantsDigest) || !d.idx.Listed(to) {
		return "", nil
	}
	digest, err := d.reg.Digest(d.ctx, d.repo.Tag(to))
	if err != nil {
		p := problemAt(refs, true, "digest of %s:%s: %v", d.img, to, err)
		return "", &p
	}
	return digest, nil
}

// leftAlone is the notice for a reference that keeps its tag and digest.
func (d decider) leftAlone(r scan.Ref, dec policy.Decision) Notice {
	if d.pol.Pin() == "digest" && r.Digest == "" && !r.DigestField.OK {
		return notice(r, ReasonNoDigestField, "pin: digest, but no digest can be written here: add one by hand, or mark the full reference (# imagebot: image)")
	}
	if dec.Reason == "" {
		// Candidates exist, yet this reference does not move: only a
		// pinned reference whose digest is current comes here.
		return notice(r, ReasonUpToDate, "")
	}
	return notice(r, dec.Reason, dec.Detail)
}

// pin finds the versioned tag that today has the same digest as a floating
// one, trying the best candidates first and giving up after maxPinTries.
func (d decider) pin(tag string) (string, error) {
	want, err := d.reg.Digest(d.ctx, d.repo.Tag(tag))
	if err != nil {
		return "", err
	}
	for i, cand := range d.idx.PinCandidates() {
		if i == maxPinTries {
			break
		}
		got, err := d.reg.Digest(d.ctx, d.repo.Tag(cand))
		if err != nil {
			return "", err
		}
		if got == want {
			return cand, nil
		}
	}
	return "", nil
}

func notice(r scan.Ref, reason, detail string) Notice {
	return Notice{File: r.File, Line: r.Line, Image: r.Image, Tag: r.Tag, Reason: reason, Detail: detail}
}

func notices(refs []scan.Ref, reason, detail string) []Notice {
	out := make([]Notice, len(refs))
	for i, r := range refs {
		out[i] = notice(r, reason, detail)
	}
	return out
}

// problemAt is a problem of every reference in refs, told at the first:
// the others are its Locations, so that a lookup failed for an image used
// in several files names each of them.
func problemAt(refs []scan.Ref, failed bool, format string, args ...any) Problem {
	p := problem(refs[0], failed, format, args...)
	if len(refs) > 1 {
		p.Locations = make([]scan.Location, len(refs))
		for i, r := range refs {
			p.Locations[i] = r.Location
		}
	}
	return p
}

func problem(r scan.Ref, failed bool, format string, args ...any) Problem {
	return Problem{File: r.File, Line: r.Line, Message: strings.TrimSpace(fmt.Sprintf(format, args...)), Failed: failed, Image: r.Image}
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
