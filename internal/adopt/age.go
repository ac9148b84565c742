package adopt

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/config"
)

// durationRE reads Renovate's durations ("3 days", "12 hours", "1 week").
var durationRE = regexp.MustCompile(`^(\d+)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks)$`)

// maxAge is the longest minAge imagebot's config reads (36500 days).
const maxAge = 36500 * 24 * time.Hour

// errAgeTooLong is an age beyond maxAge: no minAge is as strict, so the
// rule's images are skipped instead (never converted looser).
var errAgeTooLong = fmt.Errorf("longer than the %d days a minAge can say", maxAge/(24*time.Hour))

// renovateDuration reads a Renovate age. A count too large for a duration
// is errAgeTooLong, never a wrapped-around (or zero) age.
func renovateDuration(s string) (config.Duration, error) {
	m := durationRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("want minutes, hours, days or weeks")
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[m[2][0]]
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil || n > uint64(maxAge/unit) {
		return 0, errAgeTooLong // also a count of more digits than uint64 holds
	}
	return config.Duration(time.Duration(n) * unit), nil
}

// stabilityDays reads Renovate's older age setting, a number of days
// (a fraction rounded up to the minute, so never shorter).
func stabilityDays(v *jnode) (config.Duration, error) {
	f, err := strconv.ParseFloat(v.str, 64)
	switch {
	case v.kind != '0' || err != nil || f < 0:
		return 0, fmt.Errorf("want a whole number of days")
	case f > float64(maxAge/(24*time.Hour)):
		return 0, errAgeTooLong
	}
	d := time.Duration(math.Ceil(f*24*60)) * time.Minute
	return config.Duration(d), nil
}
