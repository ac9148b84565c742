package config

import (
	"strings"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		str  string // how String writes it back
	}{
		{"3d", 72 * time.Hour, "3d"},
		{"12h", 12 * time.Hour, "12h"},
		{"90m", 90 * time.Minute, "1h30m"},
		{"1d12h", 36 * time.Hour, "1d12h"},
		{"1d30m", 24*time.Hour + 30*time.Minute, "1d30m"},
		{"1h30m", 90 * time.Minute, "1h30m"},
		{"45s", 45 * time.Second, "45s"},
		{"0", 0, "0s"},
		{"0d", 0, "0s"},
		{"36500d", 36500 * 24 * time.Hour, "36500d"},
	}
	for _, tc := range tests {
		got, err := parseDuration(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if s := Duration(got).String(); s != tc.str {
			t.Errorf("Duration(%v).String() = %q, want %q", got, s, tc.str)
		}
		if back, err := parseDuration(Duration(got).String()); err != nil || back != got {
			t.Errorf("String of %q does not read back: %v, %v", tc.in, back, err)
		}
	}
	for _, bad := range []string{"", "3", "d", "3D", "1.5d", "3 days", "-6h", "+6h", "1d-1h", "1d+1h", "36501d",
		"99999999999999999999d", "1d2d", "h", "3w", "36500d1s", "9999999h"} {
		if got, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", bad, got)
		}
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		yaml string
		want Size
		err  string
	}{
		{"maxFileSize: 1048576", 1 << 20, ""},
		{"maxFileSize: 0", 0, ""},
		{"maxFileSize: 512KiB", 512 << 10, ""},
		{"maxFileSize: 8MiB", 8 << 20, ""},
		{"maxFileSize: 8 MiB", 8 << 20, ""},
		{"maxFileSize: 1GiB", 1 << 30, ""},
		{"maxFileSize: 100B", 100, ""},
		{"maxFileSize: '4096'", 4096, ""},
		{"maxFileSize: 2GiB", 0, `"maxFileSize" is too large: at most 1GiB`},
		{"maxFileSize: 1073741825", 0, `"maxFileSize" is too large: at most 1GiB`},
		{"maxFileSize: 99999999999999999999", 0, `"maxFileSize" is too large: at most 1GiB`},
		{"maxFileSize: 99999999999999999999KiB", 0, `"maxFileSize" is too large: at most 1GiB`},
		{"maxFileSize: -1", 0, `"maxFileSize" must not be negative`},
		{"maxFileSize: 8MB", 0, `unknown unit "MB": use B, KiB, MiB or GiB (did you mean "8MiB"?)`},
		{"maxFileSize: 8Mi", 0, `(did you mean "8MiB"?)`},
		{"maxFileSize: 8kb", 0, `(did you mean "8KiB"?)`},
		{"maxFileSize: 8 mib", 0, `(did you mean "8MiB"?)`},
		{"maxFileSize: 1.5MiB", 0, `"maxFileSize" must be a size in bytes, such as 8388608, "512KiB" or "8MiB", got "1.5MiB"`},
		{"maxFileSize: 1.5", 0, `got number 1.5`},
		{"maxFileSize: [1]", 0, `got a list`},
	}
	for _, tc := range tests {
		c, err := Parse("f.yaml", []byte(tc.yaml))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.yaml, err)
		case tc.err == "" && c.MaxFileSize != tc.want:
			t.Errorf("%s: MaxFileSize = %d, want %d", tc.yaml, c.MaxFileSize, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v, want one containing %q", tc.yaml, err, tc.err)
		}
	}
}
