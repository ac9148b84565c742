package policy

import (
	"errors"
	"strings"
)

// numeric orders strings of digits, optionally dot-separated, as tuples of
// numbers of any size: build numbers (42 < 108) and calendar versions
// (2024.05.01 < 2024.12.01).
type numeric struct{}

var _ strategy = numeric{}

type numTuple []string

var _ version = numTuple(nil)

var errNotNumeric = errors.New("want digits, optionally dot-separated")

func (numeric) name() string { return "numeric" }

func (numeric) parse(s string) (version, error) {
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" || strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return nil, errNotNumeric
		}
	}
	return numTuple(parts), nil
}

// accepts keeps candidates that state at least as many numbers as the
// current tag (up to three): 2024.05.01 never moves to 2024.06, an alias
// or another scheme, nor 1.4.5 to 3050.
func (numeric) accepts(cur, v version) bool {
	return cur == nil || min(len(v.(numTuple)), 3) >= min(len(cur.(numTuple)), 3)
}

func (a numTuple) compare(o version) int { return compareTuple(a, o.(numTuple)) }

func (a numTuple) numbers() []string { return a }
