package policy

import "path"

// compared returns the part of tag that the versioning compares: the whole
// tag, or the `version` group of the pattern. ok is false when the pattern
// does not match, or matches without the group taking part.
func (p *Policy) compared(tag string) (string, bool) {
	if p.pattern == nil {
		return tag, true
	}
	if p.group < 0 {
		// An order's pattern selects whole tags (Spec.Order).
		return tag, p.pattern.MatchString(tag)
	}
	m := p.pattern.FindStringSubmatchIndex(tag)
	if m == nil || m[2*p.group] < 0 {
		return "", false
	}
	return tag[m[2*p.group]:m[2*p.group+1]], true
}

// ignored reports whether the user listed tag, exactly or by glob ("1.27.*").
// An exact tag is a glob that matches only itself: tags never hold the
// metacharacters * ? [ \.
func (p *Policy) ignored(tag string) bool { return p.ignoredBy(tag) != "" }

// ignoredBy returns the first ignore entry that matches tag, or "".
func (p *Policy) ignoredBy(tag string) string {
	for _, g := range p.spec.Ignore {
		// New checked every glob, so Match cannot fail here.
		if ok, _ := path.Match(g, tag); ok {
			return g
		}
	}
	return ""
}

// allowed applies `allow`: minor keeps the first number of the current
// version, patch the first two (for semver: major, major.minor). Numbers
// compare as numbers, so 07 keeps 7.
func (p *Policy) allowed(cur, v version) bool {
	a, b := cur.numbers(), v.numbers()
	for i := 0; i < p.fixed; i++ {
		switch {
		case i >= len(a) && i >= len(b):
			return true
		case i >= len(a) || i >= len(b):
			return false
		case compareDigits(a[i], b[i]) != 0:
			return false
		}
	}
	return true
}
