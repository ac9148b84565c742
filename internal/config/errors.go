package config

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem in a config file. Line and Col are 1-based; Col is 0
// when only the line is known (YAML syntax errors), Line is 0 when the
// problem is the file as a whole.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors is every problem found in one config file, in file order. Parse,
// Load and Find return it as a *Errors, so callers can
//
//	var errs *config.Errors
//	if errors.As(err, &errs) { for _, e := range *errs { ... } }
type Errors []Error

// Error prints one "file:line:col: msg" line per problem.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find a single Error.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

// sorted puts errors in file order and drops repeats: a value reached
// through several aliases is checked once per alias.
func (es Errors) sorted() Errors {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return slices.Compact(es)
}

// suggest returns ` (did you mean "x"?)` for the option closest to s, or ""
// when none is close enough to be a likely typo.
func suggest(s string, options []string) string {
	best := closest(s, options)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// closest is the option s is a slip for (the same but for case, or at
// most two edits away), "" when there is none.
func closest(s string, options []string) string {
	best, bestDist := "", 3 // more than two edits is a different word
	for _, o := range options {
		if strings.EqualFold(s, o) {
			return o
		}
		if d := distance(strings.ToLower(s), strings.ToLower(o)); d < bestDist && d < len(o) {
			best, bestDist = o, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
