package scan

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxShown is how many characters of a value a message shows. A value can
// be anything a file holds (a 10,000-character tag, a whole JSON document
// on one line); a message stays one readable line.
const maxShown = 100

// clip cuts s to maxShown characters, marking the cut with an ellipsis.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxShown {
		return s
	}
	n := 0
	for i := range s {
		if n == maxShown {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// quote is clip inside Go quotes, for values in messages.
func quote(s string) string { return strconv.Quote(clip(s)) }

// size spells a byte count for people: "8 MiB", "200.5 MiB", "900 bytes".
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
