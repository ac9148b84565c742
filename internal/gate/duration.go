package gate

import (
	"fmt"
	"time"
)

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
