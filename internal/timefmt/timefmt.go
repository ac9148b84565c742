package timefmt

import (
	"fmt"
	"strings"
	"time"
)

// Duration writes d as .imagebot.yaml does: whole days in front ("3d",
// "1d12h"), then hours, minutes and seconds without zero parts ("12h",
// "1h30m"). A day is 24 hours, as config reads it. Zero and negative
// durations, which config refuses, are "0s".
func Duration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	var b strings.Builder
	if days := d / (24 * time.Hour); days > 0 {
		fmt.Fprintf(&b, "%dd", days)
		d -= days * 24 * time.Hour
	}
	if d == 0 {
		return b.String()
	}
	s := d.String() // "1h30m0s", "12h0m0s", "45m0s", "1.5s"
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return b.String() + s
}

// Stamp writes t to the minute in UTC, "2026-03-14 09:26 UTC": a PR body
// or notice reads the same wherever the run was.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
