package policy

import (
	"fmt"
	"regexp"
	"strings"
)

// Reasons a current tag stays although a newer version exists in another
// shape: the Decision names the highest such tag and why it was passed over.
const (
	ReasonOtherStream     = "other-stream"     // newer only with another prefix, or another form of build counter or commit id
	ReasonOtherOS         = "other-os"         // newer only for another Windows OS build, which must match the node's
	ReasonNewerFloating   = "newer-floating"   // newer only as a floating tag (an alias that moves)
	ReasonNewerPrerelease = "newer-prerelease" // newer only as a prerelease the current tag may not move to
	ReasonLessPrecise     = "less-precise"     // newer only as a tag stating fewer numbers (an alias or another scheme)
	ReasonExcluded        = "excluded"         // newer, but the policy's ignore, allow, range, pattern or versioning leaves it out
)

// passedOver is the reason and detail for a current tag that its rule
// leaves where it is: the highest tag of a higher version in any shape, and
// why it is not a candidate. Both are "" when there is none: only then is
// the tag up to date.
func (x *Index) passedOver(ct *tag, cur version) (reason, detail string) {
	var top *entry
	for i := range x.entries {
		e := &x.entries[i]
		if x.newer(e, ct, cur) && (top == nil || x.above(e, top, ct, cur)) {
			top = e
		}
	}
	if top == nil {
		return "", ""
	}
	return x.why(top, ct, cur)
}

// newer reports whether e names a higher version than the current tag in
// any shape. The policy's versioning decides what it reads; the rest is
// read as the stream rule reads it: the version's numbers (1.26 is 1.26.0),
// then for a prerelease current, a later prerelease or the release. A date
// and a version are two schemes and never compare (alpine's 20240329 is no
// newer version than 3.19.1), and a commit id without a version never is.
func (x *Index) newer(e *entry, ct *tag, cur version) bool {
	if x.p.explicit() && e.ok {
		return e.c.v.compare(cur) > 0
	}
	t := e.t
	if !t.versioned() || !ct.versioned() || t.dated != ct.dated {
		return false
	}
	if c := comparePadded(t.version, ct.version); c != 0 {
		return c > 0
	}
	return ct.pre.word != "" && t.pre.compare(ct.pre) > 0
}

// above orders the newer tags for naming one: a release before any
// prerelease (the one a user would move to), then a tag that states as
// many numbers as the current one (a newer version for certain), then the
// highest version; of
// equal versions the current tag's own stream, then a tag that does not
// float, then the higher counter, then the least string, so that the
// listing's order never chooses.
func (x *Index) above(a, b *entry, ct *tag, cur version) bool {
	if ar, br := a.t.pre.word == "", b.t.pre.word == ""; ar != br {
		return ar
	}
	if ap, bp := x.precise(a, ct, cur), x.precise(b, ct, cur); ap != bp {
		return ap
	}
	if x.p.explicit() && a.ok && b.ok {
		if c := a.c.v.compare(b.c.v); c != 0 {
			return c > 0
		}
	}
	if c := comparePadded(a.t.version, b.t.version); c != 0 {
		return c > 0
	}
	if c := a.t.pre.compare(b.t.pre); c != 0 {
		return c > 0
	}
	if as, bs := a.t.stream() == ct.stream(), b.t.stream() == ct.stream(); as != bs {
		return as
	}
	if af, bf := x.float.has(a.t), x.float.has(b.t); af != bf {
		return bf
	}
	if c := compareTuple(a.t.counter, b.t.counter); c != 0 {
		return c > 0
	}
	return a.t.raw < b.t.raw
}

// why says why e, newer than the current tag, is not a candidate. The
// user's own filters come first, then what binds the image to its node,
// then the tag's shape.
func (x *Index) why(e *entry, ct *tag, cur version) (reason, detail string) {
	t := e.t
	not := func(reason, format string, args ...any) (string, string) {
		return reason, t.raw + " is newer but " + fmt.Sprintf(format, args...)
	}
	if g := x.p.ignoredBy(t.raw); g != "" {
		return not(ReasonExcluded, "ignored (ignore: %s): not proposed", g)
	}
	if _, ok := x.p.compared(t.raw); !ok {
		return not(ReasonExcluded, "does not match pattern \"%s\": not proposed", x.p.spec.Pattern)
	}
	if x.p.explicit() && !e.ok && !x.float.has(t) {
		return not(ReasonExcluded, "versioning %s does not read it: not proposed", x.strat.name())
	}
	if e.ok && !x.p.allowed(cur, e.c.v) {
		kept := map[int]string{1: "first number", 2: "first two numbers"}[x.p.fixed]
		return not(ReasonExcluded, "allow: %s keeps the %s: not proposed", x.p.spec.Allow, kept)
	}
	if a, b := windowsBuild(ct), windowsBuild(t); a != b && a != "" && b != "" {
		return not(ReasonOtherOS, "for another Windows OS build (%s, not %s): a container's OS build must match its node's, so it is never proposed", b, a)
	}
	if x.float.has(t) {
		if now := x.highest(func(u entry) bool { return extends(u.t, t) && !x.float.has(u.t) }); now != nil {
			return not(ReasonNewerFloating, "floats, now %s (an alias that moves): not proposed", now.raw)
		}
		return not(ReasonNewerFloating, "floats (an alias that moves): not proposed")
	}
	if x.p.explicit() {
		return x.whyExplicit(e, ct, cur, not)
	}
	switch {
	case t.pre.word != "":
		return x.whyPrerelease(t, ct, not)
	case t.prefix != ct.prefix:
		if strings.TrimSuffix(t.prefix, "v") == strings.TrimSuffix(ct.prefix, "v") {
			return not(ReasonOtherStream, "spells the version with another prefix: not proposed; "+
				"a policy with pattern '^v?(?P<version>\\d+(\\.\\d+)*)$' follows both")
		}
		return not(ReasonOtherStream, "has another prefix (%s, not %s): another stream, not proposed", label(t.prefix), label(ct.prefix))
	case t.form != ct.form:
		return not(ReasonOtherStream, "%s: another stream, not proposed", formDiff(t, ct))
	case t.variant != ct.variant:
		return ReasonOtherVariant, t.verText + " only as " + variantLabel(t.variant)
	case !x.precise(e, ct, cur):
		return not(ReasonLessPrecise, "states fewer numbers than %s: not proposed", ct.raw)
	}
	return not(ReasonOtherStream, "of another stream: not proposed")
}

// whyExplicit says why an explicit versioning passed over a tag it reads.
func (x *Index) whyExplicit(e *entry, ct *tag, cur version, not func(string, string, ...any) (string, string)) (string, string) {
	sv, ok := e.c.v.(semVersion)
	c, _ := cur.(semVersion)
	switch {
	case ok && c.v != nil && sv.vPrefix != c.vPrefix:
		return not(ReasonOtherStream, "spells the version with another prefix: not proposed")
	case !x.precise(e, ct, cur):
		return not(ReasonLessPrecise, "states fewer numbers than %s: not proposed", ct.raw)
	case ok && sv.v.Prerelease() != "" && (c.v == nil || c.v.Prerelease() == ""):
		if x.p.spec.Range != "" {
			return not(ReasonNewerPrerelease, "a prerelease, and range %q names none: not proposed", x.p.spec.Range)
		}
		return not(ReasonNewerPrerelease, "a prerelease: a release never moves to one")
	case ok && x.p.spec.Range != "":
		return not(ReasonExcluded, "outside range %q: not proposed", x.p.spec.Range)
	}
	return not(ReasonOtherStream, "not a candidate under versioning %s: not proposed", x.strat.name())
}

// whyPrerelease says why the stream rule passed over a prerelease.
func (x *Index) whyPrerelease(t, ct *tag, not func(string, string, ...any) (string, string)) (string, string) {
	if ct.pre.word == "" {
		return not(ReasonNewerPrerelease, "a prerelease: a release never moves to one")
	}
	if t.stream() != ct.stream() {
		return not(ReasonNewerPrerelease, "a prerelease of another stream: not proposed")
	}
	return not(ReasonNewerPrerelease, "a prerelease of another version (%s, not %s): a prerelease moves only to a later one of its own version, or to a release",
		strings.Join(t.version, "."), strings.Join(ct.version, "."))
}

// windowsRelease finds a Windows release named in a variant: ltsc2022,
// 1809, 21H2 (alone or glued, as servercore1809).
var windowsRelease = regexp.MustCompile(`(?i)(ltsc20\d\d|1607|1709|1803|1809|1903|1909|2004|2009|[12]\dH[12])(?:$|[-_.])`)

// windowsBuild is the Windows OS a tag is built for: the build of a
// 10.0.17763.5576 version, or the release its variant names; "" when it
// names none.
func windowsBuild(t *tag) string {
	if t.winOS != "" {
		return t.winOS
	}
	if !isWindowsTag(t.raw) && !windowsRelease.MatchString(t.variant) {
		return ""
	}
	if m := windowsRelease.FindStringSubmatch(t.variant); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// formDiff says how t's build counter or commit id differs from cur's.
func formDiff(t, cur *tag) string {
	has := func(u *tag) bool { return len(u.counter) > 0 }
	switch {
	case has(t) && !has(cur):
		return "has a build counter, " + cur.raw + " none"
	case !has(t) && has(cur):
		return "has no build counter, " + cur.raw + " has one"
	case t.id && !cur.id:
		return "has a commit id, " + cur.raw + " none"
	case !t.id && cur.id:
		return "has no commit id, " + cur.raw + " has one"
	}
	return "counts its builds in another form than " + cur.raw
}

// label names a prefix for humans.
func label(prefix string) string {
	if prefix == "" {
		return "none"
	}
	return prefix
}

// comparePadded compares version numbers as if the shorter had zeros
// after it: 1.26 and 1.26.0 name one version.
func comparePadded(a, b []string) int {
	for i := 0; i < max(len(a), len(b)); i++ {
		x, y := "0", "0"
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := compareDigits(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// precise reports whether e states as many numbers as the current tag
// (up to three), as the versioning counts them: a tag that states fewer is
// never a newer version under any versioning.
func (x *Index) precise(e *entry, ct *tag, cur version) bool {
	if !x.p.explicit() || !e.ok {
		return e.t.preciseFor(ct)
	}
	switch v := e.c.v.(type) {
	case semVersion:
		return v.precision() >= cur.(semVersion).precision()
	case numTuple:
		return numeric{}.accepts(cur, v)
	}
	return true
}
