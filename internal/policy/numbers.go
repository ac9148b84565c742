package policy

import "strings"

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
// prefix of the other, the longer one is greater (11.0.20 < 11.0.20.1).
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

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// digitRuns returns the runs of ASCII digits in s, as written.
func digitRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}
