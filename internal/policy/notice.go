package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// maxLabels bounds the variants an other-variant detail names.
const maxLabels = 4

// floating is the decision for a current tag that floats. It names the
// highest tag that states the floating tag's numbers and more ("1.27
// floats, now 1.27.3"), found in the listing without a registry request;
// `latest` and `alpine3.20` state no numbers to extend, so none is named.
func (x *Index) floating(cur *tag) Decision {
	now := x.highest(func(e entry) bool { return extends(e.t, cur) && !x.float.has(e.t) })
	if now == nil {
		return Decision{Reason: ReasonFloating, Detail: cur.raw + " floats (pin: tag)"}
	}
	return Decision{Reason: ReasonFloating, Detail: fmt.Sprintf("%s floats, now %s (pin: tag)", cur.raw, now.raw)}
}

// otherVariants says when the newest version of the current tag's family
// (same prefix and counter form, any variant) is newer than newest, the best
// the current stream offers, and exists only in other variants: "22.3.0 only
// as alpine3.19". The policy's filters apply, so an ignored or disallowed
// version is not mentioned. "" when there is nothing to say. otherOS says
// that the current tag is built for a Windows OS build and no variant of
// that version is built for the same one: none could run on its node.
func (x *Index) otherVariants(cur *tag, curV version, newest *tag) (detail string, otherOS bool) {
	sibling := func(e entry) bool {
		t := e.t
		return e.ok && t.versioned() && t.pre.word == "" && t.family() == cur.family() && t.variant != cur.variant &&
			t.preciseFor(cur) && x.p.allowed(curV, e.c.v)
	}
	var top *tag
	for _, e := range x.entries {
		if sibling(e) && higherVersion(e.t, top) {
			top = e.t
		}
	}
	if top == nil || compareTuple(top.version, newest.version) <= 0 {
		return "", false
	}
	labels := map[string]bool{}
	os := windowsBuild(cur)
	otherOS = os != ""
	for _, e := range x.entries {
		if sibling(e) && compareTuple(e.t.version, top.version) == 0 {
			labels[variantLabel(e.t.variant)] = true
			otherOS = otherOS && windowsBuild(e.t) != os
		}
	}
	detail = top.verText + " only as " + strings.Join(closest(cur.variant, labels), ", ")
	if otherOS {
		detail += fmt.Sprintf(", none for Windows %s: a container's OS build must match its node's, so another is never proposed", os)
	}
	return detail, otherOS
}

// highest is the tag a notice names among the entries keep accepts, or
// nil: the highest version, and of equal ones the least string, so that
// the listing's order never chooses.
func (x *Index) highest(keep func(e entry) bool) *tag {
	var top *tag
	for _, e := range x.entries {
		if !keep(e) {
			continue
		}
		if top == nil {
			top = e.t
			continue
		}
		if c := e.t.compare(top); c > 0 || (c == 0 && e.t.raw < top.raw) {
			top = e.t
		}
	}
	return top
}

// higherVersion reports whether t's version is above top's. Equal versions
// may be spelt differently (1.02, 1.2): the listing's order must not choose
// the spelling.
func higherVersion(t, top *tag) bool {
	if top == nil {
		return true
	}
	c := compareTuple(t.version, top.version)
	return c > 0 || (c == 0 && t.verText < top.verText)
}

// closest orders variant labels by likeness to the current variant (words
// shared, then fewest extra words, then name), so that alpine3.19 is told
// about alpine3.24 before perl, and cuts the list at maxLabels.
func closest(variant string, labels map[string]bool) []string {
	want := variantWords(variant)
	type scored struct {
		name          string
		shared, extra int
	}
	var ls []scored
	for l := range labels {
		s := scored{name: l}
		if l == "plain" {
			ls = append(ls, s)
			continue
		}
		for _, w := range variantWords(l) {
			if slices.Contains(want, w) {
				s.shared++
			} else {
				s.extra++
			}
		}
		ls = append(ls, s)
	}
	slices.SortFunc(ls, func(a, b scored) int {
		return cmp.Or(b.shared-a.shared, a.extra-b.extra, strings.Compare(a.name, b.name))
	})
	names := make([]string, 0, maxLabels+1)
	for i, s := range ls {
		if i == maxLabels {
			names = append(names, fmt.Sprintf("%d more", len(ls)-maxLabels))
			break
		}
		names = append(names, s.name)
	}
	return names
}

// variantWords are the words of a variant without their numbers:
// alpine3.19-slim has alpine and slim.
func variantWords(v string) []string {
	var ws []string
	for _, tok := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if w := strings.ToLower(leadingLetters(tok)); w != "" {
			ws = append(ws, w)
		}
	}
	return ws
}

// variantLabel names a variant for humans: "alpine3.19", "jdk-jammy", or
// "plain" for a tag without one.
func variantLabel(v string) string {
	if v = strings.TrimLeft(v, "-_."); v == "" {
		return "plain"
	}
	return v
}
