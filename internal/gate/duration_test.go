package gate_test

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
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
		0:                             "0s",
		-time.Hour:                    "0s",
	} {
		if got := gate.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
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
