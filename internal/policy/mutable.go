package policy

import "strings"

// Mutable reports whether tag floats, judged from the registry's listing
// tags. A tag floats when it names no version by itself (no digits, as
// latest, stable; or digits only in a variant, as alpine3.20, jdk21,
// ltsc2022), or when another tag of its stream (same prefix, variants and
// prerelease) states its numbers and more: a longer version (1.26 while
// 1.26.1 exists, 7-alpine while 7.2.5-alpine exists, 26-jdk while
// 26.0.2_10-jdk exists), or the same version with a longer build counter
// (9.3 while 9.3-1361 exists, 2.6.3 while 2.6.3-rev1-b1.2 exists). A tag
// with a commit id never floats, and a commit build (v2.4.0-12-g3a4b5c6)
// never makes its release float. 15.4 with no 15.4.x beside it is an
// ordinary, immutable version.
func Mutable(tag string, tags []string) bool {
	win := windowsListing(tags) || isWindowsTag(tag)
	t := parseTag(tag, win)
	if t.floats() {
		return true
	}
	for _, u := range tags {
		if extends(parseTag(u, win), t) {
			return true
		}
	}
	return false
}

// extends reports whether u states t's numbers and more in t's stream.
func extends(u, t *tag) bool {
	if !t.versioned() || t.id || !u.versioned() || u.id || u.floatBase() != t.floatBase() {
		return false
	}
	if len(t.counter) == 0 && len(t.version) < len(u.version) && equalParts(t.version, u.version[:len(t.version)]) {
		return true
	}
	n := len(t.counter)
	return equalParts(t.version, u.version) && n < len(u.counter) && equalParts(t.counter, u.counter[:n]) &&
		t.form == u.formUpTo(n)
}

// floatBase is what a floating tag shares with the tags it follows.
func (t *tag) floatBase() string { return t.floatKey }

// formUpTo is the counter form as far as the first n counter numbers.
func (t *tag) formUpTo(n int) string {
	if n == 0 {
		return ""
	}
	return t.form[:t.formEnd[n-1]]
}

// equalParts compares numbers as written: 1.026 does not extend 1.26.
func equalParts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// floatKey identifies t among the tags it could float over.
func floatKey(base string, version []string, form string, counter []string) string {
	return base + "\x00" + strings.Join(version, ".") + "\x00" + form + "\x00" + strings.Join(counter, ".")
}

// tagSet holds what Mutable reports as floating for one listing, built in
// one pass so that filtering n tags costs O(n), not O(n²): each tag marks
// every shorter form of itself it extends (1.26.1-alpine marks 1.26-alpine
// and 1-alpine; 9.3-1361.1699548029 marks 9.3-1361 and 9.3).
type tagSet map[string]bool

func mutableSet(tags []*tag) tagSet {
	set := tagSet{}
	for _, u := range tags {
		if !u.versioned() || u.id {
			continue
		}
		base := u.floatBase()
		for k := 1; k < len(u.version); k++ {
			set[floatKey(base, u.version[:k], "", nil)] = true
		}
		for k := 0; k < len(u.counter); k++ {
			set[floatKey(base, u.version, u.formUpTo(k), u.counter[:k])] = true
		}
	}
	return set
}

// has reports whether t floats in the listing the set was built from.
func (m tagSet) has(t *tag) bool {
	if t.floats() {
		return true
	}
	return t.versioned() && !t.id && m[floatKey(t.floatBase(), t.version, t.form, t.counter)]
}
