package adopt

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/policy"
)

// ruleEntry is a policy from a rule, and whether the global labels or
// reviewers must be cleared before it.
type ruleEntry struct {
	entry
	clearLabels, clearReviewers bool
}

// typed converts a rule limited to update types into a policy with
// updateTypes, which can say what happens to those updates' pull requests
// (automerge, labels, reviewers, approval). `enabled: false` for major (and
// minor) holds them back for good: that is `allow: minor` (`patch`), a
// policy of its own, since the type is known only once a tag is chosen.
func (c *renovate) typed(where string, r *jnode, globs, paths, types []string, e *ruleEntry) bool {
	e.p.UpdateTypes = updateTypes(types)
	if len(e.p.UpdateTypes) == 0 {
		c.note(r.get("matchUpdateTypes"), "%s: matchUpdateTypes %s: no imagebot update type; rule not converted", where, strings.Join(types, ", "))
		return false
	}
	for j, k := range r.keys {
		v := r.vals[j]
		switch {
		case matchers[k]:
		case k == "automerge":
			if v.isTrue() {
				e.p.Automerge = e.p.UpdateTypes
			} else {
				e.p.Automerge = []string{}
			}
		case k == "labels" || k == "addLabels":
			e.p.Labels = append(e.p.Labels, c.strs(r, k)...)
			e.clearLabels = e.clearLabels || (k == "labels" && c.globalLbl)
		case k == "reviewers" || k == "additionalReviewers":
			e.p.Reviewers = append(e.p.Reviewers, c.reviewers(r, k)...)
			e.clearReviewers = e.clearReviewers || (k == "reviewers" && c.globalRev)
		case k == "dependencyDashboardApproval":
			// convertRule sets approval for the rule's types.
		case k == "enabled" && v.isFalse():
			allow := ""
			switch t := slices.Sorted(slices.Values(types)); {
			case slices.Equal(t, []string{"major"}):
				allow = "minor"
			case slices.Equal(t, []string{"major", "minor"}):
				allow = "patch"
			default:
				c.note(v, "%s: enabled: false for %s: imagebot can only hold back major (allow: minor) or major and minor (allow: patch); not converted", where, strings.Join(types, ", "))
				continue
			}
			for i, g := range globs {
				out := entry{p: config.Policy{Match: g, Paths: paths, Allow: ptr(allow)}}
				if i == 0 {
					out.comment = []string{"From " + where + " (enabled: false for " + strings.Join(types, ", ") + ")."}
				}
				c.d.add(out)
			}
		case k == "groupName":
			c.note(v, "%s: a group for %s updates only: imagebot groups whole images, so the group takes every update of them", where, strings.Join(types, ", "))
		case k == "minimumReleaseAge" || k == "stabilityDays":
			c.typedAge(where, r, k, v, globs, paths, types)
		case ruleActions[k]:
			c.note(v, "%s: %s with matchUpdateTypes: imagebot chooses the tag before it knows the update type, so only automerge, labels, reviewers and dependencyDashboardApproval convert; not converted", where, k)
		}
	}
	return true
}

// updateTypes maps Renovate's update types onto imagebot's; a counter-only
// rebuild (build) is a patch to Renovate.
func updateTypes(types []string) []string {
	var out []string
	add := func(t string) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, t := range types {
		switch t {
		case "major", "minor", "pin", "rollback":
			add(t)
		case "patch":
			add("patch")
			add("build")
		case "digest", "pinDigest":
			add("digest")
		}
	}
	return out
}

// actions converts the settings of a rule without update types.
func (c *renovate) actions(where string, r *jnode, globs []string, e *ruleEntry) bool {
	var spec policy.Spec
	for j, k := range r.keys {
		v := r.vals[j]
		switch k {
		case "enabled":
			if v.isFalse() {
				e.p.Skip = ptr(true)
			}
		case "allowedVersions":
			if !c.allowed(where, v, globs, &spec, e) {
				return false
			}
		case "ignoreVersions":
			list, _ := v.list()
			for _, iv := range list {
				switch {
				case strings.HasPrefix(iv, "!"):
					c.note(v, "%s: ignoreVersions %q: a negation cannot be expressed; not converted", where, iv)
				case strings.HasPrefix(iv, "/"):
					gs, err := regexGlobs(jsRegexBody(iv))
					if err != nil {
						c.note(v, "%s: ignoreVersions %s is %v; not converted", where, iv, errNotGlob)
						continue
					}
					spec.Ignore = append(spec.Ignore, gs...)
				default:
					spec.Ignore = append(spec.Ignore, iv)
				}
			}
		case "versioning":
			if !c.versioning(where, v, &spec, e) {
				return false
			}
		case "minimumReleaseAge", "stabilityDays":
			s := v.str
			d, err := renovateDuration(s)
			if k == "stabilityDays" {
				s += " days"
				d, err = stabilityDays(v)
			}
			switch {
			case errors.Is(err, errAgeTooLong):
				// Renovate would wait longer than any minAge: nothing is
				// proposed for these images, which skip says exactly.
				c.note(v, "%s: %s %q is %v: its images are skipped instead (no update is proposed), never given a shorter age", where, k, s, err)
				e.p.Skip = ptr(true)
				e.why["skip"] = k + " " + strconv.Quote(s)
				continue
			case err != nil:
				c.note(v, "%s: %s %q: %v; not converted", where, k, s, err)
				continue
			}
			e.p.MinAge = &d
			e.why["minAge"] = "from the image's build time, on every registry"
		case "pinDigests":
			switch {
			case v.isTrue():
				spec.Pin, c.pinned = "digest", true
			case v.isFalse() && c.pinned:
				// imagebot's pin has no "off" that undoes an earlier digest pin.
				c.note(v, "%s: pinDigests false: a digest an earlier rule pins (pin: digest) cannot be unpinned by a later policy; not converted", where)
			}
		case "automerge":
			if v.isTrue() {
				e.p.Automerge = allTypes
			} else {
				e.p.Automerge = []string{}
			}
		case "labels":
			e.p.Labels = append(e.p.Labels, c.strs(r, k)...)
			e.clearLabels = e.clearLabels || c.globalLbl
		case "addLabels":
			e.p.Labels = append(e.p.Labels, c.strs(r, k)...)
		case "reviewers":
			e.p.Reviewers = append(e.p.Reviewers, c.reviewers(r, k)...)
			e.clearReviewers = e.clearReviewers || c.globalRev
		case "additionalReviewers":
			e.p.Reviewers = append(e.p.Reviewers, c.reviewers(r, k)...)
		}
	}
	if _, err := policy.New(spec); err != nil {
		c.note(r, "%s: %v; rule not converted", where, err)
		return false
	}
	set := func(dst **string, v string) {
		if v != "" {
			*dst = ptr(v)
		}
	}
	set(&e.p.Versioning, spec.Versioning)
	set(&e.p.Range, spec.Range)
	set(&e.p.Pattern, spec.Pattern)
	set(&e.p.Pin, spec.Pin)
	if spec.Ignore != nil {
		e.p.Ignore = spec.Ignore
	}
	return true
}

// jsRegexBody strips JavaScript's slashes and turns its flags into Go's:
// /^1\./i -> (?i)^1\.
func jsRegexBody(re string) string {
	i := strings.LastIndex(re, "/")
	body, flags := re[1:i], re[i+1:]
	if strings.Contains(flags, "i") {
		body = "(?i)" + body
	}
	return body
}

// versionPart splits a docker tag into a `v`, its dotted number and the rest.
var versionPart = regexp.MustCompile(`^(v?)(\d+(?:\.\d+)*)(.*)$`)

// allowed converts allowedVersions. A /regexp/ keeps the tags it matches
// and compares them by the default rule. A range is semver: Renovate reads
// it as npm semver on the version with its suffix cut off, so when the
// images' tags carry one suffix (7.2.4-alpine) the pattern keeps that
// suffix fixed and compares only the number, as Renovate does.
func (c *renovate) allowed(where string, v *jnode, globs []string, spec *policy.Spec, e *ruleEntry) bool {
	s := v.str
	switch {
	case strings.HasPrefix(s, "!/"):
		c.note(v, "%s: allowedVersions %s: a negated regexp cannot be expressed; rule not converted", where, s)
		return false
	case strings.HasPrefix(s, "/"):
		p, err := wholeTag(jsRegexBody(s))
		if err != nil {
			c.note(v, "%s: allowedVersions %s: %v; rule not converted", where, s, err)
			return false
		}
		spec.Pattern = p
		e.why["pattern"] = "allowedVersions " + s
		return true
	}
	spec.Versioning, spec.Range = "semver", s
	e.why["range"] = "allowedVersions"
	prefix, suffix, same := c.tagForm(globs)
	switch {
	case !same:
		c.note(v, "%s: allowedVersions %q: the images' tags have different suffixes, which imagebot's semver reads as prereleases; check `imagebot plan`", where, s)
	case suffix != "":
		spec.Pattern = "^" + regexp.QuoteMeta(prefix) + `(?P<version>\d+(?:\.\d+)*)` + regexp.QuoteMeta(suffix) + "$"
		e.why["pattern"] = "keeps the " + suffix + " suffix, as Renovate's docker versioning does"
	}
	return true
}

// tagForm reads the current tags of the images the globs match: the `v`
// and suffix they share, or same=false when they differ.
func (c *renovate) tagForm(globs []string) (prefix, suffix string, same bool) {
	first := true
	for _, r := range c.refs {
		if !slices.ContainsFunc(globs, func(g string) bool { ok, _ := doublestar.Match(g, r.Image); return ok }) {
			continue
		}
		m := versionPart.FindStringSubmatch(r.Tag)
		if m == nil {
			continue
		}
		if first {
			prefix, suffix, first = m[1], m[3], false
		} else if m[1] != prefix || m[3] != suffix {
			return "", "", false
		}
	}
	return prefix, suffix, true
}

// versioning converts Renovate's versioning: docker and loose are
// imagebot's default rule, semver is semver, and `regex:` becomes a pattern.
func (c *renovate) versioning(where string, v *jnode, spec *policy.Spec, e *ruleEntry) bool {
	switch s := v.str; {
	case s == "docker" || s == "loose":
		e.comment = append(e.comment, "versioning "+s+": imagebot's default rule.")
	case s == "semver" || s == "semver-coerced":
		spec.Versioning = "semver"
	case strings.HasPrefix(s, "regex:"):
		p, err := versionSpan(strings.TrimPrefix(s, "regex:"))
		if err != nil {
			c.note(v, "%s: versioning %q: %v; rule not converted", where, s, err)
			return false
		}
		spec.Pattern = p
		e.why["pattern"] = "versioning regex; the groups major..compatibility are compared by the default rule"
	default:
		c.note(v, "%s: versioning %q has no imagebot equivalent; rule not converted", where, s)
		return false
	}
	return true
}

var nonSlug = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// slug makes a group name safe in a branch name: "All non-major" -> all-non-major.
func slug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-._")
	if len(s) > 63 {
		s = strings.Trim(s[:63], "-._")
	}
	if s == "" {
		s = "group"
	}
	return s
}

// typedAge converts a release age for some update types only. imagebot
// checks the age before it knows the type, so the age applies to every
// update of the rule's images: stricter than Renovate, never looser.
func (c *renovate) typedAge(where string, r *jnode, k string, v *jnode, globs, paths, types []string) {
	sub := &jnode{kind: '{', line: r.line, file: r.file, keys: []string{k}, vals: []*jnode{v}}
	e := ruleEntry{entry: entry{why: map[string]string{}}}
	if !c.actions(where, sub, globs, &e) || (e.p.MinAge == nil && e.p.Skip == nil) {
		return
	}
	c.note(v, "%s: %s for %s updates only: imagebot checks a release's age before it knows the update type, so the age applies to every update of these images (stricter than Renovate, never looser)", where, k, strings.Join(types, ", "))
	for i, g := range globs {
		out := entry{why: e.why, p: config.Policy{Match: g, Paths: paths, MinAge: e.p.MinAge, Skip: e.p.Skip}}
		if i == 0 {
			out.comment = []string{"From " + where + " (" + k + " for " + strings.Join(types, ", ") + ")."}
		}
		c.d.add(out)
	}
}
