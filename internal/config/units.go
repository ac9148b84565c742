package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/timefmt"
)

// Duration is a time.Duration written as Go writes durations ("12h", "90m",
// "1h30m") or with whole days in front ("3d", "1d12h"): release ages and
// soak times are counted in days, which time.ParseDuration does not know.
type Duration time.Duration

// maxDays keeps day counts far from time.Duration's ~292 years.
const maxDays = 36500

var daysPrefix = regexp.MustCompile(`^([0-9]+)d`)

// Reasons parseDuration gives for a value it refuses.
var (
	errNegative = errors.New("must not be negative")
	errTooLong  = fmt.Errorf("is too long: at most %dd", maxDays)
	errSyntax   = errors.New("is not a duration")
)

// parseDuration reads a Duration. A day is 24 hours: the gates compare
// timestamps, not calendar dates.
func parseDuration(s string) (time.Duration, error) {
	if strings.HasPrefix(s, "-") {
		return 0, errNegative
	}
	var days time.Duration
	rest := s
	if m := daysPrefix.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > maxDays {
			return 0, errTooLong
		}
		days, rest = time.Duration(n)*24*time.Hour, s[len(m[0]):]
		if rest == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(rest)
	switch {
	case err != nil || strings.HasPrefix(rest, "+") || strings.HasPrefix(rest, "-"):
		return 0, errSyntax
	case d > maxDays*24*time.Hour-days:
		return 0, errTooLong
	}
	return days + d, nil
}

// String writes d as it would be written in the file: "3d", "1d12h",
// "1h30m", "0s".
func (d Duration) String() string { return timefmt.Duration(time.Duration(d)) }

// MarshalText writes d as String does, so that JSON (the golden tests,
// `plan --output json`) shows "3d" rather than nanoseconds.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Duration) decodeYAML(dec *decoder, n *yaml.Node, name string) {
	const want = `a duration such as "3d", "12h", "90m" or "1d12h"`
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && n.Value == "0" {
		*d = 0 // the one number without a unit that cannot be misread
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		hint := ""
		if n.ShortTag() == "!!int" {
			hint = fmt.Sprintf(" (say the unit: %q or %q)", n.Value+"d", n.Value+"h")
		}
		dec.typeError(n, name, want, hint)
		return
	}
	v, err := parseDuration(n.Value)
	switch {
	case errors.Is(err, errSyntax):
		dec.badValue(n, "%q must be %s, got %q%s", name, want, n.Value, durationHint(n.Value))
	case err != nil:
		dec.badValue(n, "%q %s, got %q", name, err, n.Value)
	default:
		*d = Duration(v)
	}
}

// durationHint steers the usual slips (a fraction of a day, capitals,
// spaces, words) towards what parses.
func durationHint(s string) string {
	switch t := strings.ToLower(strings.ReplaceAll(s, " ", "")); {
	case strings.Contains(s, ".") && strings.Contains(s, "d"):
		return " (days are whole: write 36h for 1.5d)"
	case t != s && t != "":
		if _, err := parseDuration(t); err == nil {
			return fmt.Sprintf(" (did you mean %q?)", t)
		}
		for _, unit := range []struct{ word, short string }{{"days", "d"}, {"day", "d"}, {"hours", "h"}, {"hour", "h"}, {"minutes", "m"}, {"min", "m"}} {
			if u := strings.Replace(t, unit.word, unit.short, 1); u != t {
				if _, err := parseDuration(u); err == nil {
					return fmt.Sprintf(" (did you mean %q?)", u)
				}
			}
		}
	}
	return ""
}

// Size is a number of bytes, written as an integer or with a binary unit:
// "512KiB", "8MiB", "1GiB".
type Size int64

// sizeCap bounds a Size: files are read whole into memory, so a cap above
// this no longer bounds anything.
const sizeCap = 1 << 30

var sizeUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

var sizePattern = regexp.MustCompile(`^([0-9]+) ?([A-Za-z]*)$`)

func (s *Size) decodeYAML(d *decoder, n *yaml.Node, name string) {
	const want = `a size in bytes, such as 8388608, "512KiB" or "8MiB"`
	var bytes int64
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int":
		if n.Decode(&bytes) != nil {
			d.badValue(n, "%q is too large: at most %s", name, "1GiB")
			return
		}
	case n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!str" || n.ShortTag() == "!!float" && sizePattern.MatchString(n.Value)):
		// Digits beyond int64 are a float to YAML; still a size, too large.
		m := sizePattern.FindStringSubmatch(n.Value)
		if m == nil {
			d.badValue(n, "%q must be %s, got %q", name, want, n.Value)
			return
		}
		unit, ok := sizeUnits[m[2]]
		if !ok {
			d.badValue(n, "%q has an unknown unit %q: use B, KiB, MiB or GiB%s", name, m[2], sizeUnitHint(m[1], m[2]))
			return
		}
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || v > sizeCap/unit {
			d.badValue(n, "%q is too large: at most %s", name, "1GiB")
			return
		}
		bytes = v * unit
	default:
		d.typeError(n, name, want, "")
		return
	}
	switch {
	case bytes < 0:
		d.badValue(n, "%q must not be negative (0 or leaving it out keeps the default)", name)
	case bytes > sizeCap:
		d.badValue(n, "%q is too large: at most %s", name, "1GiB")
	default:
		*s = Size(bytes)
	}
}

// sizeUnitHint maps decimal and Kubernetes-style units to the binary unit
// they are usually meant as; "8MB" is not silently 8,000,000 bytes.
func sizeUnitHint(num, unit string) string {
	switch strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(unit), "b"), "i") {
	case "k":
		return fmt.Sprintf(" (did you mean %q?)", num+"KiB")
	case "m":
		return fmt.Sprintf(" (did you mean %q?)", num+"MiB")
	case "g":
		return fmt.Sprintf(" (did you mean %q?)", num+"GiB")
	}
	return ""
}
