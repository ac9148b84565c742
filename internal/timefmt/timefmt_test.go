package timefmt_test

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/timefmt"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		72 * time.Hour:                "3d",
		36 * time.Hour:                "1d12h",
		12 * time.Hour:                "12h",
		90 * time.Minute:              "1h30m",
		45 * time.Minute:              "45m",
		30 * time.Second:              "30s",
		24*time.Hour + 30*time.Minute: "1d30m",
		2*time.Hour + 30*time.Second:  "2h0m30s",
		24*time.Hour + 90*time.Second: "1d1m30s",
		36500 * 24 * time.Hour:        "36500d",
		0:                             "0s",
		-time.Hour:                    "0s",
	} {
		if got := timefmt.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStamp(t *testing.T) {
	// Another zone and seconds: the stamp is the same minute in UTC.
	at := time.Date(2026, 3, 14, 10, 26, 59, 0, time.FixedZone("CET", 3600))
	if got, want := timefmt.Stamp(at), "2026-03-14 09:26 UTC"; got != want {
		t.Errorf("Stamp(%v) = %q, want %q", at, got, want)
	}
}
