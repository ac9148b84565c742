package policy

import (
	"slices"
	"strings"
)

// shape is the default strategy: a candidate must have the same shape as the
// current tag (identical non-digit runs at identical positions, as many digit
// runs), and among those the highest tuple of numbers wins. So 7.2.4-alpine
// only moves to 7.x.y-alpine, and v1.7.0 never to 1.9.0 or v1.9.0-rc.0.
type shape struct{}

var _ strategy = shape{}

// shaped is a string split into runs of digits and runs of non-digits.
type shaped struct {
	digitFirst bool     // the string starts with a digit run
	seps       []string // the non-digit runs, in order
	nums       []string // the digit runs, in order, as written
	lead       int      // how many of nums form the leading dotted version (1.27.3 in 1.27.3-alpine3.20)
}

var _ version = shaped{}

func (shape) name() string { return "shape" }

func (shape) parse(s string) (version, error) { return split(s), nil }

// accepts keeps candidates of the same shape only; when pinning (cur == nil)
// every shape competes.
func (shape) accepts(cur, v version) bool {
	if cur == nil {
		return true
	}
	return cur.(shaped).sameShape(v.(shaped))
}

// split cuts s into runs of ASCII digits and runs of everything else.
func split(s string) shaped {
	var sh shaped
	sh.digitFirst = s != "" && isDigit(s[0])
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && isDigit(s[j]) == isDigit(s[i]) {
			j++
		}
		if isDigit(s[i]) {
			sh.nums = append(sh.nums, s[i:j])
		} else {
			sh.seps = append(sh.seps, s[i:j])
		}
		i = j
	}
	sh.lead = leadingVersion(sh)
	return sh
}

// leadingVersion counts the digit runs of the first dotted number sequence:
// 3 for 1.27.3-alpine3.20, 3 for v1.2.0, 1 for build-42, 0 for latest.
func leadingVersion(sh shaped) int {
	if len(sh.nums) == 0 {
		return 0
	}
	// seps[k] follows nums[0] when the string starts with a digit, else
	// seps[k+1] does (seps[0] is the prefix before the first number).
	first := 0
	if !sh.digitFirst {
		first = 1
	}
	n := 1
	for n < len(sh.nums) && sh.seps[first+n-1] == "." {
		n++
	}
	return n
}

func (a shaped) sameShape(b shaped) bool {
	return a.digitFirst == b.digitFirst && len(a.nums) == len(b.nums) && slices.Equal(a.seps, b.seps)
}

// compare orders tags of the same shape by the tuple of all their numbers.
// Across shapes (only when pinning) it compares the leading dotted version
// alone and leaves the rest to better, so that 1.27.3-alpine3.20 ranks with
// 1.27.3 (and after it, having more non-digits) rather than above it.
func (a shaped) compare(o version) int {
	b := o.(shaped)
	if c := compareTuple(a.nums[:a.lead], b.nums[:b.lead]); c != 0 || !a.sameShape(b) {
		return c
	}
	return compareTuple(a.nums, b.nums)
}

func (a shaped) numbers() []string { return a.nums }

// nonDigits counts the characters of s that are not digits: among tags with
// equal numbers, the one with the fewest is the plainest (1.27.3 before
// 1.27.3-bookworm).
func nonDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			n++
		}
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// compareDigits compares two runs of decimal digits as numbers of any size,
// without parsing them: a registry tag such as 20240501123000000000 must not
// overflow. Leading zeros do not count (007 == 7).
func compareDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// compareTuple compares number tuples element by element; when one is a
// prefix of the other, the longer one is greater.
func compareTuple(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareDigits(a[i], b[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
