package config

import (
	"slices"
	"time"

	"github.com/imagebot/imagebot/internal/policy"
)

// Policy is one entry of `policies:`. Pointer and slice fields are nil when
// the key is absent, so that merging can tell "not said" from "said zero".
type Policy struct {
	// Match is a doublestar glob over normalized image names
	// ("docker.io/library/nginx"): `*` stays within a path segment, `**`
	// crosses segments.
	Match string  `yaml:"match"`
	Skip  *bool   `yaml:"skip"`
	Allow *string `yaml:"allow"` // major | minor | patch
	// Ignore lists versions (exact tags or path.Match globs) that are never
	// proposed.
	Ignore []string `yaml:"ignore"`
	// Pattern is a regexp with a named group `version`: tags that do not
	// match are not candidates, and only the group is compared.
	Pattern *string `yaml:"pattern"`
	// Versioning is semver | numeric | alphabetical; absent means the
	// default stream rule.
	Versioning *string `yaml:"versioning"`
	// Range is a Masterminds semver constraint. It is only accepted next to
	// `versioning: semver` in the same entry (see For).
	Range *string `yaml:"range"`
	Pin   *string `yaml:"pin"` // tag | digest
	// Labels and Reviewers add to pullRequests.labels/reviewers and to
	// those of earlier matching policies; an empty list clears them (see
	// For).
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	// Automerge lists the update types that may merge without review:
	// major | minor | patch | build | digest | pin | rollback.
	Automerge []string `yaml:"automerge"`

	// The gates a candidate must pass to be proposed.

	// MinAge is how old a candidate must be, from its image's creation
	// time.
	MinAge *Duration `yaml:"minAge"`
	// Platforms asks that a candidate has the current image's platforms
	// (`keep`) or the ones listed.
	Platforms *Platforms `yaml:"platforms"`
	// DigestSettle is how long a re-pushed digest of the same tag waits
	// before it is proposed.
	DigestSettle *Duration `yaml:"digestSettle"`
	// Signature asks for a cosign signature on the candidate's digest.
	Signature *Signature `yaml:"signature"`

	// Line is the line of the entry in the file, 0 when not from a file.
	Line int `yaml:"-"`
}

// Resolved is what the policies say about one image. Allow is "major" when
// no policy narrows it; the other strings are "" and the gates zero (off)
// when no policy sets them.
type Resolved struct {
	Skip                                   bool
	Allow, Pattern, Versioning, Range, Pin string
	Ignore, Labels, Reviewers, Automerge   []string

	MinAge, DigestSettle time.Duration
	Platforms            Platforms
	Signature            *Signature // nil: no signature needed
}

// Spec is what internal/policy compiles of r: the one place where the
// config's keys become a policy.Spec (checkSpec compiles the same keys,
// entry by entry, when the file is loaded).
func (r Resolved) Spec() policy.Spec {
	return policy.Spec{
		Skip: r.Skip, Allow: r.Allow, Ignore: r.Ignore, Pattern: r.Pattern,
		Versioning: r.Versioning, Range: r.Range, Pin: r.Pin,
	}
}

// For merges every policy whose match fits image (a normalized name such as
// "docker.io/library/nginx") in file order: a key that a later policy sets
// replaces the earlier value, lists included, so `ignore: []` clears an
// earlier ignore list and a later signature replaces an earlier one whole.
// Setting versioning also resets range, because a range only means
// something in the versioning it was written for.
//
// Labels and reviewers are the exception: they start from
// pullRequests.labels/reviewers and each matching policy adds its own
// (without repeats), as Renovate's addLabels does, so that a team label
// never drops the repository's `dependencies` label. An explicit empty list
// (`labels: []`) clears what was gathered so far, for the images that must
// not carry the defaults.
func (c *Config) For(image string) Resolved {
	r := Resolved{
		Allow:     "major",
		Labels:    c.PullRequests.Labels,
		Reviewers: c.PullRequests.Reviewers,
	}
	for _, p := range c.Policies {
		if !anyMatch([]string{p.Match}, image) {
			continue
		}
		set(&r.Skip, p.Skip)
		set(&r.Allow, p.Allow)
		set(&r.Pattern, p.Pattern)
		if p.Versioning != nil {
			r.Versioning, r.Range = *p.Versioning, ""
		}
		set(&r.Range, p.Range)
		set(&r.Pin, p.Pin)
		setList(&r.Ignore, p.Ignore)
		addList(&r.Labels, p.Labels)
		addList(&r.Reviewers, p.Reviewers)
		setList(&r.Automerge, p.Automerge)
		if p.MinAge != nil {
			r.MinAge = time.Duration(*p.MinAge)
		}
		if p.DigestSettle != nil {
			r.DigestSettle = time.Duration(*p.DigestSettle)
		}
		set(&r.Platforms, p.Platforms)
		if p.Signature != nil {
			r.Signature = p.Signature
		}
	}
	// Callers get their own lists: a Resolved is never an alias into c.
	r.Ignore, r.Labels = slices.Clone(r.Ignore), slices.Clone(r.Labels)
	r.Reviewers, r.Automerge = slices.Clone(r.Reviewers), slices.Clone(r.Automerge)
	r.Platforms.List = slices.Clone(r.Platforms.List)
	if r.Signature != nil {
		s := *r.Signature
		r.Signature = &s
	}
	return r
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setList(dst *[]string, v []string) {
	if v != nil {
		*dst = v
	}
}

// addList appends the items of v that dst lacks; an empty (not absent) v
// clears dst.
func addList(dst *[]string, v []string) {
	switch {
	case v == nil:
	case len(v) == 0:
		*dst = []string{}
	default:
		out := slices.Clone(*dst)
		for _, s := range v {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		*dst = out
	}
}
