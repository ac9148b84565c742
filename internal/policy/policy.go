package policy

import (
	"fmt"
	"path"
	"regexp"
)

// Spec is what the user configured for one image, after every matching
// config entry was merged.
type Spec struct {
	Skip       bool
	Allow      string   // "" or "major" (default: anything), "minor" (first number fixed), "patch" (first two numbers fixed)
	Ignore     []string // tags never proposed; entries are exact tags or path.Match globs ("1.27.*")
	Pattern    string   // regexp with a named group `version`; tags not matching are filtered out; the group is what is compared
	Versioning string   // "" (default stream rule), "semver", "numeric", "alphabetical"
	Range      string   // semver constraint (Masterminds), only with versioning semver (error otherwise)
	Pin        string   // "", "tag", "digest"
	// Order, when set ("created" or "firstSeen"), orders tags that carry
	// no version by build time or by first sight (order.go): the pattern
	// then selects the tags and needs no `version` group.
	Order string
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
	// accepts reports whether v may replace cur at all: same stream, same
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
	"":             stream{},
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
		if p.group = re.SubexpIndex("version"); p.group < 0 && s.Order == "" {
			return nil, fmt.Errorf(`pattern "%s": needs a named group (?P<version>...) for the part to compare`, s.Pattern)
		}
		p.pattern = re
	}
	if err := checkOrder(s); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("versioning %q: want semver, numeric or alphabetical (or nothing for the stream rule)", s.Versioning)
	}
	return p, nil
}

// Skip reports whether the user asked to leave this image alone.
func (p *Policy) Skip() bool { return p.spec.Skip }

// Pin returns "", "tag" or "digest" as configured.
func (p *Policy) Pin() string { return p.spec.Pin }

// explicit reports whether the user chose how to read tags (versioning or
// pattern): then the policy decides on its own terms, also for a current
// tag that the stream rule would call floating.
func (p *Policy) explicit() bool { return p.spec.Versioning != "" || p.pattern != nil }
