package policy

import "strings"

// alphabetical orders strings byte by byte, for tags that sort as text such
// as timestamps (20240501T1200 < 20240502T0900). Every string parses.
type alphabetical struct{}

var _ strategy = alphabetical{}

type text string

var _ version = text("")

func (alphabetical) name() string { return "alphabetical" }

func (alphabetical) parse(s string) (version, error) { return text(s), nil }

func (alphabetical) accepts(cur, v version) bool { return true }

func (a text) compare(o version) int { return strings.Compare(string(a), string(o.(text))) }

// numbers are the digit runs, so that `allow` still means "keep the first
// number(s)" (20240501T1200 has 20240501 and 1200).
func (a text) numbers() []string { return digitRuns(string(a)) }
