package gate_test

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
)

var now = time.Date(2026, 8, 20, 12, 0, 0, 0, time.UTC)

func TestMinAge(t *testing.T) {
	tests := []struct {
		name    string
		created time.Time
		from    string
		min     time.Duration
		want    string
	}{
		{"old enough", now.Add(-4 * 24 * time.Hour), imagefacts.FromConfig, 72 * time.Hour, ""},
		{"exactly the limit", now.Add(-72 * time.Hour), imagefacts.FromConfig, 72 * time.Hour, ""},
		{"too young", now.Add(-5*time.Hour - 59*time.Minute), imagefacts.FromConfig, 72 * time.Hour, "5h old, minAge 3d"},
		{"a minute short", now.Add(-12*time.Hour + time.Minute), imagefacts.FromAnnotation, 12 * time.Hour, "11h old, minAge 12h"},
		{"minutes", now.Add(-42 * time.Minute), imagefacts.FromConfig, 90 * time.Minute, "42m old, minAge 1h30m"},
		{"days and hours", now.Add(-50 * time.Hour), imagefacts.FromLabel, 7 * 24 * time.Hour, "2d2h old, minAge 7d"},
		{"just pushed", now.Add(-10 * time.Second), imagefacts.FromConfig, time.Hour, "under a minute old, minAge 1h"},
		{"epoch", time.Unix(0, 0), "", 72 * time.Hour, "build time unknown (created 1970-01-01, as reproducible builds write), minAge 3d"},
		{"zero time", time.Time{}, "", 72 * time.Hour, "no build time (neither config created nor the org.opencontainers.image.created annotation), minAge 3d"},
		{"future", now.Add(time.Hour), imagefacts.FromConfig, time.Hour, "built in the future (2026-08-20T13:00:00Z), minAge 1h"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := gate.MinAge(imagefacts.Facts{Created: tc.created, CreatedFrom: tc.from}, tc.min, now)
			if got != tc.want {
				t.Errorf("MinAge = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSettle(t *testing.T) {
	tests := []struct {
		name   string
		newest time.Time
		settle time.Duration
		want   string
	}{
		{"settled", now.Add(-7 * time.Hour), 6 * time.Hour, ""},
		{"still being pushed", now.Add(-2 * time.Hour), 6 * time.Hour, "2h old, digestSettle 6h"},
		{"reproducible", time.Unix(0, 0).UTC(), 6 * time.Hour, "build time unknown (created 1970-01-01, as reproducible builds write), digestSettle 6h"},
		{"unknown", time.Time{}, 6 * time.Hour, "no build time (neither config created nor the org.opencontainers.image.created annotation), digestSettle 6h"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Created is the first platform's and must not count: a
			// re-push changes the newest.
			f := imagefacts.Facts{Created: now.Add(-30 * 24 * time.Hour), CreatedFrom: imagefacts.FromConfig, Newest: tc.newest}
			if got := gate.Settle(f, tc.settle, now); got != tc.want {
				t.Errorf("Settle = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		59 * time.Second:             "under a minute",
		59 * time.Minute:             "59m",
		5*time.Hour + 59*time.Minute: "5h",
		72 * time.Hour:               "3d",
		4*24*time.Hour + 3*time.Hour: "4d3h",
	} {
		if got := gate.Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}
