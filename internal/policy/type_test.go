package policy

import "testing"

func TestType(t *testing.T) {
	tests := []struct {
		from, to, want string
	}{
		{"1.2.3", "2.0.0", "major"},
		{"1.2.3", "1.3.0", "minor"},
		{"1.2.3", "1.2.4", "patch"},
		{"1.9.0", "1.10.0", "minor"},
		{"1.09.0", "1.9.1", "patch"},
		{"1.2.3.4", "1.2.3.5", "patch"},
		{"v1.7.0", "v2.0.0", "major"},
		{"7.2.4-alpine", "7.4.0-alpine", "minor"},
		{"2.6.2-rev1-b5.1", "2.6.3-rev1-b1.2", "patch"},
		{"2.6.2-rev1-b5.1", "2.6.2-rev1-b5.2", "patch"},
		{"build-9", "build-10", "major"},
		{"2024.05.01", "2024.06.01", "minor"},
		{"1.27.3", "1.27.3-bookworm", "patch"},
		{"1.2.3", "1.2.3", "digest"},
		{"latest", "latest", "digest"},
		{"latest", "1.26.1", "pin"},
		{"stable", "1.26.1-alpine", "pin"},
		{"1.26", "1.26.1", "pin"},
		{"7-alpine", "7.2.5-alpine", "pin"},
		{"v1", "v1.2.0", "pin"},
		{"1.26", "1.27", "minor"},
	}
	for _, tc := range tests {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			if got := Type(tc.from, tc.to); got != tc.want {
				t.Errorf("Type(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
			}
		})
	}
}
