package policy

import "strings"

// segment is one run of a tag between separators.
type segment struct {
	sep  string // separators before it: "-", "_", "." (between non-digits), "" at the start
	text string
}

// segments cuts s at '-', '_' and at '.' unless the dot stands between two
// digits (1.25.4, alpine3.19 and b5.1 stay whole). `x86_64` and a
// date-time such as 2024-03-05T04-48-44Z (minio) are single segments.
func segments(s string) []segment {
	var out []segment
	i := 0
	for i < len(s) {
		start := i
		for i < len(s) && isSep(s, i) {
			i++
		}
		sep := s[start:i]
		if i == len(s) {
			out = append(out, segment{sep: sep})
			break
		}
		if n := wholeSegment(s[i:]); n > 0 {
			out = append(out, segment{sep: sep, text: s[i : i+n]})
			i += n
			continue
		}
		j := i
		for j < len(s) && !isSep(s, j) {
			j++
		}
		out = append(out, segment{sep: sep, text: s[i:j]})
		i = j
	}
	return out
}

func isSep(s string, i int) bool {
	switch s[i] {
	case '-', '_', '/': // '/' only in git tags (kustomize/v5.4.1): image tags hold none
		return true
	case '.':
		return i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1])
	}
	return false
}

// wholeSegment returns the length of a segment at the start of s that
// contains separators of its own, or 0.
func wholeSegment(s string) int {
	for _, w := range []string{"x86_64", "x86-64"} {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || isSep(s, len(w))) {
			return len(w)
		}
	}
	if n := dateTime(s); n > 0 && (len(s) == n || isSep(s, n)) {
		return n
	}
	return 0
}

// dateTime matches a date-time at the start of s and returns its length:
// YYYY-MM-DD, optionally followed by THH-MM[-SS][Z] (also with colons or
// dots), as minio's RELEASE.2024-03-05T04-48-44Z; or YYYYMMDDTHHMM[SS][Z].
func dateTime(s string) int {
	digits := func(i, n int) bool {
		if i+n > len(s) {
			return false
		}
		for k := i; k < i+n; k++ {
			if !isDigit(s[k]) {
				return false
			}
		}
		return true
	}
	if digits(0, 8) && len(s) > 12 && s[8] == 'T' && dateLike(s[:8]) && digits(9, 4) {
		n := 13
		if digits(n, 2) {
			n += 2
		}
		if n < len(s) && s[n] == 'Z' {
			n++
		}
		return n
	}
	if !digits(0, 4) || len(s) < 10 || s[4] != '-' || !digits(5, 2) || s[7] != '-' || !digits(8, 2) {
		return 0
	}
	n := 10
	if n < len(s) && s[n] == 'T' && digits(n+1, 2) {
		i := n + 3
		for range 2 { // minutes, then seconds
			if i < len(s) && (s[i] == '-' || s[i] == ':' || s[i] == '.') && digits(i+1, 2) {
				i += 3
			} else if digits(i, 2) {
				i += 2
			} else {
				break
			}
		}
		n = i
		if n < len(s) && s[n] == 'Z' {
			n++
		}
	}
	return n
}

// numberLen is the length of the dotted number `\d+(\.\d+)*` at the start
// of s.
func numberLen(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i
}

// isNumber reports whether s is a dotted number: 1361.1699548029, 12, 5.1.
func isNumber(s string) bool { return s != "" && numberLen(s) == len(s) }

func leadingLetters(s string) string {
	i := 0
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	return s[:i]
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
