package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/policy"
)

// Policy is one entry of `policies:`. Pointer and slice fields are nil when
// the key is absent, so that merging can tell "not said" from "said zero".
type Policy struct {
	// Match is a doublestar glob over normalized image names
	// ("docker.io/library/nginx"): `*` stays within a path segment, `**`
	// crosses segments.
	Match string `yaml:"match"`
	// Paths, when set, are doublestar globs over the file that holds a
	// reference (relative to the repository root): the policy applies only
	// to references in those files, so one image can follow a stable
	// policy in envs/prod and a dev one elsewhere.
	Paths []string `yaml:"paths"`
	// UpdateTypes, when set, scopes the policy to updates of those types:
	// such a policy may only say what happens to the pull request (labels,
	// reviewers, automerge, approval), because the type is known only
	// once the candidate was chosen.
	UpdateTypes []string `yaml:"updateTypes"`
	Skip        *bool    `yaml:"skip"`
	Allow       *string  `yaml:"allow"` // major | minor | patch
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
	// Order is created | firstSeen: how tags without a version (the ones
	// pattern selects) are ordered; absent means they are not ordered.
	Order *string `yaml:"order"`
	// Labels and Reviewers add to pullRequests.labels/reviewers and to
	// those of earlier matching policies; an empty list clears them (see
	// For).
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	// Automerge lists the update types that may merge without review:
	// major | minor | patch | build | digest | pin | rollback.
	Automerge []string `yaml:"automerge"`
	// Approval lists the update types (or "all") held on the dashboard
	// until ticked; it replaces the top-level approval for these images.
	Approval []string `yaml:"approval"`

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
	Order                                  string
	Ignore, Labels, Reviewers, Automerge   []string
	// Approval lists the update types (or "all") that wait for a tick on
	// the dashboard: the top-level approval unless a policy replaces it.
	Approval []string

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
		Versioning: r.Versioning, Range: r.Range, Pin: r.Pin, Order: r.Order,
	}
}

// For merges every policy that fits image (a normalized name such as
// "docker.io/library/nginx") and file (slash-separated, relative to the
// repository root) in file order: a policy fits when its match fits the
// image and, if it has paths, one of them fits the file. Policies with
// updateTypes are left out: they only speak of pull requests (see
// ForUpdate). A key that a later policy sets replaces the earlier value,
// lists included, so `ignore: []` clears an earlier ignore list and a later
// signature replaces an earlier one whole. Setting versioning also resets
// range, because a range only means something in the versioning it was
// written for.
//
// Labels and reviewers are the exception: they start from
// pullRequests.labels/reviewers and each matching policy adds its own
// (without repeats), as Renovate's addLabels does, so that a team label
// never drops the repository's `dependencies` label. An explicit empty list
// (`labels: []`) clears what was gathered so far, for the images that must
// not carry the defaults.
func (c *Config) For(image, file string) Resolved {
	return c.resolve(image, file, "")
}

// resolve is For, with the policies scoped to updateType added when it is
// not "".
func (c *Config) resolve(image, file, updateType string) Resolved {
	r := Resolved{
		Allow:     "major",
		Labels:    c.PullRequests.Labels,
		Reviewers: c.PullRequests.Reviewers,
		Approval:  c.Approval,
	}
	for _, p := range c.Policies {
		if !p.fits(image, file, updateType) {
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
		set(&r.Order, p.Order)
		setList(&r.Ignore, p.Ignore)
		addList(&r.Labels, p.Labels)
		addList(&r.Reviewers, p.Reviewers)
		setList(&r.Automerge, p.Automerge)
		setList(&r.Approval, p.Approval)
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
	r.Approval = slices.Clone(r.Approval)
	r.Platforms.List = slices.Clone(r.Platforms.List)
	if r.Signature != nil {
		s := *r.Signature
		r.Signature = &s
	}
	return r
}

// fits reports whether p applies to a reference to image in file, for an
// update of updateType ("" while the candidate is still being chosen).
func (p *Policy) fits(image, file, updateType string) bool {
	if !anyMatch([]string{p.Match}, image) {
		return false
	}
	if p.Paths != nil {
		f, ok := repoPath(file)
		if !ok || !anyMatch(p.Paths, f) {
			return false
		}
	}
	return p.UpdateTypes == nil || slices.Contains(p.UpdateTypes, updateType)
}

// Scope names the set of path-scoped policies that fit a reference to
// image in file: references of one image with the same scope get the same
// For, so a planner decides each scope of an image on its own. It is ""
// when no policy with paths fits, which is every reference of a config
// without paths.
func (c *Config) Scope(image, file string) string {
	var b strings.Builder
	for i, p := range c.Policies {
		if p.Paths != nil && p.UpdateTypes == nil && p.fits(image, file, "") {
			fmt.Fprintf(&b, "%d,", i)
		}
	}
	return b.String()
}

// PullRequest is what the policies say of an update's pull request.
type PullRequest struct {
	Labels, Reviewers []string
	// Automerge and Approval say whether the update may merge without
	// review, and whether it waits for a tick on the dashboard.
	Automerge, Approval bool
}

// ForUpdate says what the pull request of an update of updateType to
// image, whose references are in files, carries: For of each file with
// the policies scoped to updateType added. Labels and reviewers are those
// of every file; the update automerges only when the policy of every file
// allows it, and needs approval when the policy of any file asks for it.
func (c *Config) ForUpdate(image string, files []string, updateType string) PullRequest {
	pr := PullRequest{Labels: []string{}, Reviewers: []string{}, Automerge: len(files) > 0}
	for _, f := range files {
		r := c.resolve(image, f, updateType)
		pr.Labels = appendNew(pr.Labels, r.Labels)
		pr.Reviewers = appendNew(pr.Reviewers, r.Reviewers)
		pr.Automerge = pr.Automerge && slices.Contains(r.Automerge, updateType)
		pr.Approval = pr.Approval || slices.Contains(r.Approval, updateType) || slices.Contains(r.Approval, ApprovalAll)
	}
	return pr
}

// ApprovalAll in an approval list holds every update type.
const ApprovalAll = "all"

func appendNew(dst, v []string) []string {
	for _, s := range v {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
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
