package gate_test

import (
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
)

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
