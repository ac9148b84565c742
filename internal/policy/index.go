package policy

import (
	"cmp"
	"fmt"
	"slices"
)

// Index is one registry listing read for one policy, so that deciding
// several tags of one image reads the listing once. It is immutable and
// safe for concurrent use.
type Index struct {
	p       *Policy
	strat   strategy
	windows bool
	listed  map[string]bool // every tag of the listing
	float   tagSet
	entries []entry // one per distinct tag, in listing order
}

// entry is one tag of the listing.
type entry struct {
	t *tag // the whole tag, read by the stream rule
	// ok: the tag passes the filters that do not depend on the current
	// tag (not floating, not ignored, matched by the pattern, read by the
	// versioning); c is then set.
	ok bool
	c  candidate
}

// candidate is a tag with its version as the policy's versioning reads it.
type candidate struct {
	tag       string
	v         version
	nonDigits int      // characters of tag that are not digits
	nums      []string // every digit run of tag
}

// Index reads a registry listing (duplicates allowed, in any order) for
// Decide and PinCandidates.
func (p *Policy) Index(tags []string) *Index {
	x := &Index{p: p, strat: p.strat, windows: windowsListing(tags)}
	if _, ok := p.strat.(stream); ok {
		x.strat = stream{windows: x.windows}
	}
	x.listed = make(map[string]bool, len(tags))
	parsed := make([]*tag, 0, len(tags))
	for _, s := range tags {
		if !x.listed[s] {
			x.listed[s] = true
			parsed = append(parsed, parseTag(s, x.windows))
		}
	}
	x.float = mutableSet(parsed)
	x.entries = make([]entry, len(parsed))
	for i, t := range parsed {
		x.entries[i] = x.entry(t)
	}
	return x
}

// Listed reports whether tag is in the listing x was read from.
func (x *Index) Listed(tag string) bool { return x.listed[tag] }

func (x *Index) entry(t *tag) entry {
	e := entry{t: t}
	if x.float.has(t) || x.p.ignored(t.raw) {
		return e
	}
	s, ok := x.p.compared(t.raw)
	if !ok {
		return e
	}
	v, err := x.read(t, s)
	if err != nil {
		return e
	}
	e.ok = true
	e.c = candidate{tag: t.raw, v: v, nonDigits: nonDigits(t.raw), nums: digitRuns(t.raw)}
	return e
}

// better orders candidates best first: higher version; then the plainest tag
// (fewest non-digit characters: 1.27.3 before 1.27.3-bookworm); then higher
// numbers in the whole tag, for what a pattern leaves out (1.27.3-alpine3.20
// before 1.27.3-alpine3.19); then the tag string, so that equal versions
// (1.2.3 and v1.2.3 in semver) never tie.
func better(a, b candidate) int {
	if c := b.v.compare(a.v); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nonDigits, b.nonDigits); c != 0 {
		return c
	}
	if c := compareTuple(b.nums, a.nums); c != 0 {
		return c
	}
	return cmp.Compare(a.tag, b.tag)
}

// PinCandidates orders the immutable release tags that pass the pattern,
// ignore and range filters best first (higher versions, then the plainest
// tag), for turning a floating tag such as `latest` into the versioned tag
// with the same digest: the caller resolves them in this order and stops at
// the first match. `allow` does not apply: there is no current version to
// hold on to.
func (x *Index) PinCandidates() []string {
	var cs []candidate
	for _, e := range x.entries {
		if e.ok && x.strat.accepts(nil, e.c.v) {
			cs = append(cs, e.c)
		}
	}
	slices.SortFunc(cs, better)
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.tag
	}
	return out
}

// PinCandidates is Index(tags).PinCandidates().
func (p *Policy) PinCandidates(tags []string) []string { return p.Index(tags).PinCandidates() }

// readCurrent reads the current tag. A tag that the policy cannot read is
// an error naming the tag and the pattern or versioning, since the user
// asked for that policy; the pattern is checked first, so that a floating
// tag outside the pattern is reported too.
func (x *Index) readCurrent(current string) (s string, err error) {
	s, ok := x.p.compared(current)
	if !ok {
		return "", fmt.Errorf(`tag %q does not match pattern "%s"`, current, x.p.spec.Pattern)
	}
	return s, nil
}

// read is the version the strategy reads from s, the compared part of t:
// the stream rule's reading of a whole tag is t itself, parsed already.
func (x *Index) read(t *tag, s string) (version, error) {
	if _, ok := x.strat.(stream); ok && s == t.raw {
		return t, nil
	}
	return x.strat.parse(s)
}

func (x *Index) parseCurrent(ct *tag, s string) (version, error) {
	current := ct.raw
	v, err := x.read(ct, s)
	if err != nil {
		if s != current {
			return nil, fmt.Errorf("tag %q: version %q does not match versioning %s: %w", current, s, x.strat.name(), err)
		}
		return nil, fmt.Errorf("tag %q does not match versioning %s: %w", current, x.strat.name(), err)
	}
	return v, nil
}

func (p *Policy) isExact(v version) bool {
	return p.exact != nil && v.compare(p.exact) == 0
}
