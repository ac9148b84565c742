package gate

import (
	"fmt"
	"strings"
	"time"
)

// Duration writes d as .imagebot.yaml does: whole days in front ("3d",
// "1d12h"), then hours, minutes and seconds without zero parts ("12h",
// "1h30m"), so that a notice quotes the policy as it was written.
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

// Age writes an image's age coarsely, to what a reader compares with a
// minAge: "3d4h", "5h", "42m", "under a minute". Ages are rounded down,
// so "5h" never hides a 4h59m image.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	days, hours := d/(24*time.Hour), (d%(24*time.Hour))/time.Hour
	if hours == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, hours)
}
