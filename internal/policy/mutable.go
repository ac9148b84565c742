package policy

import "strings"

// Mutable reports whether tag floats, judged from the registry's listing
// tags. A tag floats when it has no digits (latest, stable, mainline), or
// when another tag with the same trailing non-digit suffix extends its
// numbers: tag = P+S, with S its trailing non-digit run (possibly empty), and
// the listing holds P+X+S where X is one or more ".<digits>" (1.26 while
// 1.26.1 exists, 7-alpine while 7.2.5-alpine exists, v1 while v1.2.0 exists).
// 15.4 with no 15.4.x beside it is an ordinary, immutable version.
func Mutable(tag string, tags []string) bool {
	if !hasDigit(tag) {
		return true
	}
	p, s := cutSuffix(tag)
	for _, u := range tags {
		if len(u) > len(tag) && strings.HasPrefix(u, p) && strings.HasSuffix(u, s) &&
			isDottedNumbers(u[len(p):len(u)-len(s)]) {
			return true
		}
	}
	return false
}

// cutSuffix splits tag into P and its trailing non-digit run S.
func cutSuffix(tag string) (p, s string) {
	i := len(tag)
	for i > 0 && !isDigit(tag[i-1]) {
		i--
	}
	return tag[:i], tag[i:]
}

// isDottedNumbers reports whether x matches (\.\d+)+.
func isDottedNumbers(x string) bool {
	if x == "" {
		return false
	}
	for _, part := range strings.Split(x, ".")[1:] {
		if part == "" || strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return false
		}
	}
	return x[0] == '.'
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// tagSet holds the tags of a listing that Mutable reports as floating, built
// in one pass so that filtering a listing of n tags costs O(n), not O(n²):
// each tag P+X+S marks every shorter P'+S it extends (1.26.1-alpine marks
// 1.26-alpine and 1-alpine).
type tagSet map[string]bool

func mutableSet(tags []string) tagSet {
	set := tagSet{}
	for _, u := range tags {
		q, s := cutSuffix(u)
		for {
			// q ends with a digit run; it extends q[:i] when a dot precedes it
			// and q[:i] still ends with a digit.
			i := len(q)
			for i > 0 && isDigit(q[i-1]) {
				i--
			}
			if i == len(q) || i < 2 || q[i-1] != '.' || !isDigit(q[i-2]) {
				break
			}
			q = q[:i-1]
			set[q+s] = true
		}
	}
	return set
}

// has reports whether tag floats: no digits, or extended in the listing.
func (m tagSet) has(tag string) bool { return !hasDigit(tag) || m[tag] }
