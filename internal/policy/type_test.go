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
		{"2.6.2-rev1-b5.1", "2.6.2-rev1-b5.2", "build"},
		{"14.2.0-debian-12-r3", "14.2.0-debian-12-r7", "build"},
		{"9.3-1361.1699548029", "9.3-1475", "build"},
		{"21.0.1_12-jdk-jammy", "21.0.1_13-jdk-jammy", "build"},
		{"v2.4.0-12-g3a4b5c6", "v2.4.0-31-g9d8e7f6", "build"},
		{"main-20240601-3f9a2c1", "main-20240601-a0b1c2d", "build"},
		{"main-20240601-3f9a2c1", "main-20240612-a0b1c2d", "build"},
		{"3.10-main-412", "3.10-main-530", "build"},
		{"20240329", "20240606", "major"},
		{"21.0.1_12-jdk-jammy", "21.0.2.1_1-jdk-jammy", "patch"},
		{"26_35-jdk", "26.0.1_8-jdk", "patch"},
		{"3.12.0rc2", "3.12.0", "patch"},
		{"3.12.0rc2", "3.13.0", "minor"},
		{"1.22rc1", "1.22.1", "patch"},
		{"10.0.17763.5458", "10.0.17763.5576", "patch"},
		{"alpine3.20", "1.27.3-alpine3.20", "pin"},
		{"9.3", "9.3-1361", "pin"},
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
