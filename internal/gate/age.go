package gate

import (
	"fmt"
	"time"

	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// MinAge is the minAge gate: the candidate must have been built at least
// min before now. It returns why the candidate is held, or "" when it
// passes. An unknown build time holds the candidate: the gate cannot vouch
// for what it cannot date.
func MinAge(f imagefacts.Facts, min time.Duration, now time.Time) string {
	return oldEnough(f.Created, f.CreatedFrom != "", min, "minAge", now)
}

// MinAgeSeen is MinAge measured from the later of the build time and
// firstSeen, when imagebot first saw the digest: a publisher can write any
// created time, but cannot make imagebot have seen its push earlier. A
// zero firstSeen is MinAge.
func MinAgeSeen(f imagefacts.Facts, firstSeen time.Time, min time.Duration, now time.Time) string {
	if why := MinAge(f, min, now); why != "" || !firstSeen.After(f.Created) {
		return why
	}
	if age := now.Sub(firstSeen); age < min {
		return fmt.Sprintf("first seen %s ago (created %s), minAge %s", Age(age), f.Created.UTC().Format("2006-01-02"), timefmt.Duration(min))
	}
	return ""
}

// Settle is the digestSettle gate, for a new digest of the current tag:
// the newest platform image behind it must be at least settle old, so
// that a multi-platform release pushed one architecture at a time is
// proposed once, when it is complete, rather than once per push.
func Settle(f imagefacts.Facts, settle time.Duration, now time.Time) string {
	return oldEnough(f.Newest, imagefacts.Known(f.Newest), settle, "digestSettle", now)
}

func oldEnough(created time.Time, known bool, min time.Duration, key string, now time.Time) string {
	limit := fmt.Sprintf("%s %s", key, timefmt.Duration(min))
	switch {
	case !known && created.IsZero():
		return "no build time (neither config created nor the org.opencontainers.image.created annotation), " + limit
	case !known:
		return fmt.Sprintf("build time unknown (created %s, as reproducible builds write), %s", created.UTC().Format("2006-01-02"), limit)
	}
	age := now.Sub(created)
	switch {
	case age < 0:
		return fmt.Sprintf("built in the future (%s), %s", created.UTC().Format(time.RFC3339), limit)
	case age < min:
		return fmt.Sprintf("%s old, %s", Age(age), limit)
	}
	return ""
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
