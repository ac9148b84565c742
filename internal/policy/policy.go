package policy

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"slices"
)

// Spec is what the user configured for one image, after every matching
// config entry was merged.
type Spec struct {
	Skip       bool
	Allow      string   // "" or "major" (default: anything), "minor" (first number fixed), "patch" (first two numbers fixed)
	Ignore     []string // tags never proposed; entries are exact tags or path.Match globs ("1.27.*")
	Pattern    string   // regexp with a named group `version`; tags not matching are filtered out; the group is what is compared
	Versioning string   // "" (default shape rule), "semver", "numeric", "alphabetical"
	Range      string   // semver constraint (Masterminds), only with versioning semver (error otherwise)
	Pin        string   // "", "tag", "digest"
}

// Policy is a compiled Spec. It is immutable and safe for concurrent use.
type Policy struct {
	spec    Spec
	pattern *regexp.Regexp // nil: the whole tag is compared
	group   int            // index of the `version` group in pattern
	strat   strategy
	exact   version // the one version an exact semver range asks for, may be below current
	fixed   int     // how many leading numbers `allow` keeps: 0, 1 or 2
}

// strategy is one way of comparing versions; one per file.
type strategy interface {
	name() string
	// parse reads the compared string (the whole tag or its `version` group).
	parse(s string) (version, error)
	// accepts reports whether v may replace cur at all: same shape, same
	// `v` prefix, prerelease and range rules. cur is nil when pinning a
	// mutable tag, which has no version of its own.
	accepts(cur, v version) bool
}

// version is a parsed tag; compare only ever sees versions of one strategy.
type version interface {
	compare(o version) int
	// numbers are the leading numbers that `allow` keeps fixed.
	numbers() []string
}

var allows = map[string]int{"": 0, "major": 0, "minor": 1, "patch": 2}

var strategies = map[string]strategy{
	"":             shape{},
	"numeric":      numeric{},
	"alphabetical": alphabetical{},
	// "semver" is built from the range in New.
}

// New validates and compiles s. Errors name the offending field and value,
// so that a bad configuration fails at start-up, never mid-run.
func New(s Spec) (*Policy, error) {
	p := &Policy{spec: s}
	var ok bool
	if p.fixed, ok = allows[s.Allow]; !ok {
		return nil, fmt.Errorf("allow %q: want major, minor or patch", s.Allow)
	}
	switch s.Pin {
	case "", "tag", "digest":
	default:
		return nil, fmt.Errorf("pin %q: want tag or digest", s.Pin)
	}
	for _, g := range s.Ignore {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("ignore %q: %w", g, err)
		}
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return nil, fmt.Errorf(`pattern "%s": %w`, s.Pattern, err)
		}
		if p.group = re.SubexpIndex("version"); p.group < 0 {
			return nil, fmt.Errorf(`pattern "%s": needs a named group (?P<version>...) for the part to compare`, s.Pattern)
		}
		p.pattern = re
	}
	if s.Range != "" && s.Versioning != "semver" {
		return nil, fmt.Errorf("range %q: needs versioning semver, not %q", s.Range, s.Versioning)
	}
	if s.Versioning == "semver" {
		sv, exact, err := newSemVer(s.Range)
		if err != nil {
			return nil, fmt.Errorf("range %q: %w", s.Range, err)
		}
		p.strat, p.exact = sv, exact
	} else if p.strat, ok = strategies[s.Versioning]; !ok {
		return nil, fmt.Errorf("versioning %q: want semver, numeric or alphabetical (or nothing for same-shape tags)", s.Versioning)
	}
	return p, nil
}

// Skip reports whether the user asked to leave this image alone.
func (p *Policy) Skip() bool { return p.spec.Skip }

// Pin returns "", "tag" or "digest" as configured.
func (p *Policy) Pin() string { return p.spec.Pin }

// candidate is a tag that passed the filters, with its parsed version.
type candidate struct {
	tag       string
	v         version
	nonDigits int      // characters of tag that are not digits
	nums      []string // every digit run of tag
}

func newCandidate(tag string, v version) candidate {
	return candidate{tag: tag, v: v, nonDigits: nonDigits(tag), nums: split(tag).nums}
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

// Latest returns the best tag that an image currently at current may move to,
// among tags (the registry's full listing).
//
// ok is false when nothing is newer, or when current is mutable (no digits as
// `latest` under the default rule, or `1.26` while `1.26.1` exists): pinning
// those is the caller's job, with PinCandidates. err is set only when current
// does not match the policy's pattern or versioning, and names both; that
// check comes first, so a caller that leaves floating tags alone under any
// policy asks Mutable before calling Latest.
func (p *Policy) Latest(current string, tags []string) (tag string, ok bool, err error) {
	// The current tag is checked against the pattern and versioning first:
	// a tag the policy cannot read is a configuration mistake worth
	// reporting, even a floating one (`latest` under semver).
	cur, err := p.parse(current)
	if err != nil {
		return "", false, err
	}
	mutable := mutableSet(tags)
	if mutable.has(current) {
		return "", false, nil
	}
	var best candidate
	for _, t := range tags {
		c, ok := p.candidate(t, cur, mutable)
		if !ok {
			continue
		}
		if d := c.v.compare(cur); d == 0 || (d < 0 && !p.isExact(c.v)) {
			// Never a downgrade, unless an exact range asks for that version.
			continue
		}
		if best.tag == "" || better(c, best) < 0 {
			best = c
		}
	}
	return best.tag, best.tag != "", nil
}

// PinCandidates orders the immutable tags that pass the pattern, ignore and
// range filters best first (higher versions, then the plainest tag), for
// turning a mutable tag such as `latest` into the versioned tag with the same
// digest: the caller resolves them in this order and stops at the first
// match. `allow` does not apply: there is no current version to hold on to.
func (p *Policy) PinCandidates(tags []string) []string {
	mutable := mutableSet(tags)
	var cs []candidate
	for _, t := range tags {
		if c, ok := p.candidate(t, nil, mutable); ok {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, better)
	out := make([]string, 0, len(cs))
	for i, c := range cs {
		if i > 0 && c.tag == cs[i-1].tag {
			continue // a listing may repeat a tag
		}
		out = append(out, c.tag)
	}
	return out
}

// candidate runs every filter on tag t: not mutable, not ignored, matched by
// the pattern, parsed by the versioning, accepted by the strategy next to cur
// and, when cur is set, within `allow`.
func (p *Policy) candidate(t string, cur version, mutable tagSet) (candidate, bool) {
	if mutable.has(t) || p.ignored(t) {
		return candidate{}, false
	}
	s, ok := p.compared(t)
	if !ok {
		return candidate{}, false
	}
	v, err := p.strat.parse(s)
	if err != nil || !p.strat.accepts(cur, v) {
		return candidate{}, false
	}
	if cur != nil && !p.allowed(cur, v) {
		return candidate{}, false
	}
	return newCandidate(t, v), true
}

// parse reads the current tag; unlike candidates, a current tag that the
// policy cannot read is an error, since the user asked for this policy.
func (p *Policy) parse(current string) (version, error) {
	s, ok := p.compared(current)
	if !ok {
		return nil, fmt.Errorf(`tag %q does not match pattern "%s"`, current, p.spec.Pattern)
	}
	v, err := p.strat.parse(s)
	if err != nil {
		if s != current {
			return nil, fmt.Errorf("tag %q: version %q does not match versioning %s: %w", current, s, p.strat.name(), err)
		}
		return nil, fmt.Errorf("tag %q does not match versioning %s: %w", current, p.strat.name(), err)
	}
	return v, nil
}

func (p *Policy) isExact(v version) bool {
	return p.exact != nil && v.compare(p.exact) == 0
}
