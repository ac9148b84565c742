package policy

import (
	"cmp"
	"slices"
)

// Reasons a Decision proposes nothing.
const (
	ReasonUpToDate     = "up-to-date"    // nothing newer exists in any shape
	ReasonFloating     = "floating"      // the current tag floats (latest, 1.27 beside 1.27.3): pin: tag fixes it
	ReasonOtherVariant = "other-variant" // newer versions exist only in other variants
	ReasonNoVersion    = "no-version"    // the current tag is a commit id (sha-3f9a2c1): nothing to compare
)

// Decision is what a policy makes of one current tag and a listing.
type Decision struct {
	// Candidates are the tags the image may move to, best first: newer
	// than the current tag, in its stream, allowed by the policy, never
	// floating. A later stage may pass over the first for the next.
	Candidates []string
	// Reason says why Candidates is empty: one of the Reason constants.
	Reason string
	// Detail is a sentence for humans: "1.27 floats, now 1.27.3 (pin: tag)",
	// "22.3.0 only as alpine3.19". It may accompany Candidates, when the
	// newest version exists only in other variants.
	Detail string
}

// Decide is Index(tags).Decide(current).
func (p *Policy) Decide(current string, tags []string) (Decision, error) {
	return p.Index(tags).Decide(current)
}

// Decide decides the tag current against the listing: filter (stream,
// allow, prerelease, newer), order (the versioning), pick (Candidates best
// first). The error is set only when current does not match the policy's
// pattern or versioning, and names both.
func (x *Index) Decide(current string) (Decision, error) {
	s, err := x.readCurrent(current)
	if err != nil {
		return Decision{}, err
	}
	ct := parseTag(current, x.windows)
	if !ct.digits {
		// No versioning reads a version from `latest`.
		return x.floating(ct), nil
	}
	cur, err := x.parseCurrent(ct, s)
	if err != nil {
		return Decision{}, err
	}
	if !x.p.explicit() {
		switch {
		case ct.floats() || x.float.has(ct):
			return x.floating(ct), nil
		case !ct.versioned():
			return Decision{Reason: ReasonNoVersion, Detail: current + " has no version to compare, only a commit id: " +
				"set a pattern and versioning to order such tags"}, nil
		}
	}
	cs := x.candidates(cur)
	d := Decision{Candidates: make([]string, len(cs))}
	for i, c := range cs {
		d.Candidates[i] = c.tag
	}
	otherOS := false
	if !x.p.explicit() {
		newest := ct
		if len(cs) > 0 {
			newest = cs[0].v.(*tag)
		}
		d.Detail, otherOS = x.otherVariants(ct, cur, newest)
	}
	switch {
	case len(cs) > 0:
	case otherOS:
		d.Reason = ReasonOtherOS
	case d.Detail != "":
		d.Reason = ReasonOtherVariant
	default:
		// Up to date only when nothing newer exists in any shape.
		d.Reason, d.Detail = x.passedOver(ct, cur)
		d.Reason = cmp.Or(d.Reason, ReasonUpToDate)
	}
	return d, nil
}

// candidates filters the listing for cur and orders it best first.
func (x *Index) candidates(cur version) []candidate {
	var cs []candidate
	releases := false
	for _, e := range x.entries {
		if !e.ok || !x.strat.accepts(cur, e.c.v) || !x.p.allowed(cur, e.c.v) {
			continue
		}
		if d := e.c.v.compare(cur); d == 0 || (d < 0 && !x.p.isExact(e.c.v)) {
			// Never a downgrade, unless an exact range asks for that version.
			continue
		}
		cs = append(cs, e.c)
		if t, ok := e.c.v.(*tag); ok && t.pre.word == "" {
			releases = true
		}
	}
	if c, ok := cur.(*tag); ok && c.pre.word != "" && releases {
		// A prerelease moves to a release once one exists at or above it.
		cs = slices.DeleteFunc(cs, func(c candidate) bool { return c.v.(*tag).pre.word != "" })
	}
	slices.SortFunc(cs, better)
	return cs
}

// Latest returns the best tag an image currently at current may move to,
// among tags (the registry's full listing): the first of Decide's
// candidates. ok is false when there is none; err as for Decide.
func (p *Policy) Latest(current string, tags []string) (tag string, ok bool, err error) {
	d, err := p.Decide(current, tags)
	if err != nil || len(d.Candidates) == 0 {
		return "", false, err
	}
	return d.Candidates[0], true, nil
}
