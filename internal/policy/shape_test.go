package policy

import "testing"

func TestShape(t *testing.T) {
	runLatest(t, []latestCase{
		{"numbers compare as numbers", Spec{}, "1.9.0", []string{"1.2.0", "1.9.0", "1.10.0", "1.9.9"}, "1.10.0"},
		{"suffix kept", Spec{}, "7.2.4-alpine", []string{
			"7.2.4-alpine", "7.2.5-alpine", "7.4.0-alpine", "8.0.1-alpine", "9.0.0", "9.0.0-bookworm",
			"9.1.0-alpine3.19", "7-alpine", "alpine", "latest",
		}, "8.0.1-alpine"},
		{"suffix kept, patch", Spec{}, "7.2.4-alpine", []string{"7.2.5", "7.2.5-bookworm", "7.2.5-alpine"}, "7.2.5-alpine"},
		{"other suffixes only", Spec{}, "7.2.4-alpine", []string{"7.2.5", "7.2.5-bookworm", "7.2.5-alpine3.19"}, ""},
		{"suffix without digits vs suffix with digits", Spec{}, "7-alpine", []string{"8-alpine3", "8-alpine", "9-alpine3.19"}, "8-alpine"},
		{"digits first or last", Spec{}, "a1", []string{"2a", "a2", "3a"}, "a2"},
		{"prefix kept", Spec{}, "v1.7.0", []string{"1.9.0", "v1.9.0-rc.0", "v1.8.1", "v1.7.0"}, "v1.8.1"},
		{"prefix: no same-shape candidate", Spec{}, "v1.7.0", []string{"1.9.0", "v1.9.0-rc.0", "v1.7"}, ""},
		{"no shorter, mutable or prerelease tags", Spec{}, "1.25.3", []string{"1.26", "latest", "1.26.0-rc1", "1.25.3"}, ""},
		{"patch among distractors", Spec{}, "1.25.3", []string{"1.26", "latest", "1.26.0-rc1", "1.25.4"}, "1.25.4"},
		{"SUSE style", Spec{}, "2.6.2-rev1-b5.1", []string{
			"2.6.2-rev1-b5.1", "2.6.2-rev1-b5.2", "2.6.3-rev1-b1.1", "2.6.3-rev1-b1.2", "2.6.3", "2.6.4-rev1", "2.6.4-rev1-b1",
		}, "2.6.3-rev1-b1.2"},
		{"numbers past uint64", Spec{}, "20240501123000000000001", []string{
			"9999", "20240501123000000000002", "20240501123000000000000", "1",
		}, "20240501123000000000002"},
		{"leading zeros: equal is not newer", Spec{}, "1.2", []string{"1.02", "01.2"}, ""},
		{"leading zeros: newer", Spec{}, "2024.05.01", []string{"2024.5.2", "2024.04.30"}, "2024.5.2"},
		{"mutable candidate never proposed", Spec{}, "15.4", []string{"15.4", "15.5", "16", "16.1", "16.1.3"}, "15.5"},
		{"current mutable", Spec{}, "1.26", []string{"1.26", "1.26.1", "1.27"}, ""},
		{"current without digits", Spec{}, "latest", []string{"latest", "1.0", "stable"}, ""},
		{"current only", Spec{}, "1.0.0", []string{"1.0.0"}, ""},
		{"empty listing", Spec{}, "1.0.0", nil, ""},
		{"current not listed", Spec{}, "1.0.0", []string{"1.0.1"}, "1.0.1"},
		{"older only", Spec{}, "1.10.0", []string{"1.9.0", "1.2.0"}, ""},
		{"pattern: build numbers", Spec{Pattern: `^build-(?P<version>\d+)$`}, "build-9",
			[]string{"build-10", "build-9", "build-8", "build-x", "build-100-rc", "xbuild-200"}, "build-10"},
		{"pattern: extracted part keeps its shape, the rest is free", Spec{Pattern: `^(?P<version>\d+\.\d+\.\d+)-debian-\d+-r\d+$`},
			"1.2.3-debian-12-r0", []string{"1.2.4-debian-12-r5", "1.3.0-debian-11-r1", "1.4-debian-12-r0", "2.0.0"}, "1.3.0-debian-11-r1"},
		{"tie: same numbers, plainest tag", Spec{Pattern: `^(?:x|yy)-(?P<version>\d+)$`}, "x-1", []string{"yy-2", "x-2"}, "x-2"},
		{"tie: same numbers, tag string", Spec{Pattern: `^(?:a|b)-(?P<version>\d+)$`}, "a-1", []string{"b-2", "a-2", "a-02"}, "a-02"},
	})
}

func TestCompareDigits(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"9", "10", -1},
		{"10", "9", 1},
		{"007", "7", 0},
		{"0", "", 0},
		{"18446744073709551616", "18446744073709551615", 1},
		{"123", "124", -1},
	}
	for _, tc := range tests {
		if got := compareDigits(tc.a, tc.b); got != tc.want {
			t.Errorf("compareDigits(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
