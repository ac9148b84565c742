package policy

import "testing"

func TestNumeric(t *testing.T) {
	num := Spec{Versioning: "numeric"}
	builds := Spec{Versioning: "numeric", Pattern: `^build-(?P<version>\d+)$`}
	runLatest(t, []latestCase{
		{"build numbers", builds, "build-9", []string{"build-10", "build-9", "build-8", "build-x", "build-100-rc", "xbuild-200"}, "build-10"},
		{"build numbers, nothing newer", builds, "build-10", []string{"build-9", "build-10"}, ""},
		{"plain numbers", num, "42", []string{"41", "108", "99", "v200", "300a"}, "108"},
		{"calver", num, "2024.05.01", []string{"2023.12.31", "2024.06.15", "2024.12.01", "2025.01.01-rc", "2025..01"}, "2024.12.01"},
		{"calver, numbers not text", num, "2024.9.1", []string{"2024.10.1", "2024.09.30"}, "2024.10.1"},
		{"past uint64", num, "18446744073709551615", []string{"18446744073709551616", "9"}, "18446744073709551616"},
		{"leading zeros: equal is not newer", num, "7", []string{"007"}, ""},
		{"a bare number is no newer version", num, "1.4.5", []string{"3050", "1.4.6"}, "1.4.6"},
		{"calver: fewer numbers", num, "2024.05.01", []string{"2024.06", "2025"}, ""},
		{"more numbers are fine", num, "2024.05", []string{"2024.05.1"}, "2024.05.1"},
		{"calver in a pattern", Spec{Versioning: "numeric", Pattern: `^(?P<version>\d{4}\.\d\d\.\d\d)-[0-9a-f]{7}$`},
			"2024.05.01-abc1234", []string{"2024.05.02-def5678", "2024.05.03-zzz", "2024.04.30-0000000"}, "2024.05.02-def5678"},
	})
}
