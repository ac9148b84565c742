package adopt

import (
	"regexp"
	"strings"
)

// hexID matches a token that can only be a git hash: hex digits with at
// least one letter and one digit, 7 to 40 long (3f9a2c1, a0b1c2d). A `g`
// in front is git describe's (v2.4.0-12-g3a4b5c6).
var hexID = regexp.MustCompile(`^g?[0-9a-f]{7,40}$`)

func isHash(tok string) bool {
	h := strings.TrimPrefix(tok, "g")
	return hexID.MatchString(tok) && strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789")
}

// hashScheme reads a tag whose last token is a git hash after something
// comparable (main-20240601-3f9a2c1, 1.43.1.10611-1e34174b1,
// v2.4.0-12-g3a4b5c6). The default rule cannot order such tags: a hash's
// letters make every tag a shape of its own. It returns a pattern whose
// `version` group is everything before the hash, with the same words and
// separators and any numbers, so that only that part is compared and the
// hash is only required to be there. ok is false for tags without a hash
// or with nothing but a hash (sha-3f9a2c1), which cannot be ordered at all.
func hashScheme(tag string) (pattern string, hashOnly bool, ok bool) {
	i := strings.LastIndexAny(tag, "-._")
	if i < 0 {
		return "", isHash(tag), false
	}
	head, sep, tok := tag[:i], tag[i:i+1], tag[i+1:]
	if !isHash(tok) {
		return "", false, false
	}
	if !strings.ContainsAny(head, "0123456789") {
		return "", true, false
	}
	g := ""
	if strings.HasPrefix(tok, "g") {
		g = "g"
	}
	return "^(?P<version>" + generalize(head) + ")" + regexp.QuoteMeta(sep+g) + "[0-9a-f]{7,40}$", false, true
}

// generalize turns a tag into a regexp that matches the same words and
// separators around any numbers: main-20240601 -> main-\d+.
func generalize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i + 1
		digit := isDigit(s[i])
		for j < len(s) && isDigit(s[j]) == digit {
			j++
		}
		if digit {
			b.WriteString(`\d+`)
		} else {
			b.WriteString(regexp.QuoteMeta(s[i:j]))
		}
		i = j
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
