package policy

import "testing"

func TestSemVer(t *testing.T) {
	sv := Spec{Versioning: "semver"}
	node := []string{
		"20.11.1", "20.12.1", "20.12.2", "20.13.0-rc.1", "21.0.0", "21.6.1", "22.1.0", "v20.12.3", "20", "20.12", "lts",
	}
	runLatest(t, []latestCase{
		{"range <21", Spec{Versioning: "semver", Range: "<21"}, "20.11.1", node, "20.12.2"},
		{"no range", sv, "20.11.1", node, "22.1.0"},
		{"range with an upper bound inside a major", Spec{Versioning: "semver", Range: ">=20.0.0, <20.12.2"}, "20.11.1", node, "20.12.1"},
		{"numbers compare as numbers", sv, "1.9.0", []string{"1.10.0", "1.9.1", "1.2.0"}, "1.10.0"},
		{"v prefix kept", sv, "v1.7.0", []string{"1.9.0", "v1.9.0-rc.0", "v1.8.0"}, "v1.8.0"},
		{"no v prefix kept", sv, "1.7.0", []string{"v1.9.0", "1.8.0"}, "1.8.0"},
		{"two-number versions", sv, "1.2", []string{"1.3", "1.10", "1.9"}, "1.10"},
		{"two-number current, three-number candidate", sv, "1.2", []string{"1.3.1"}, "1.3.1"},
		{"prereleases excluded", sv, "1.2.3", []string{"1.3.0-rc.1", "1.2.4", "2.0.0-alpha"}, "1.2.4"},
		{"prerelease current: newer prerelease", sv, "1.3.0-rc.1", []string{"1.3.0-rc.2", "1.3.0-rc.1", "1.2.9"}, "1.3.0-rc.2"},
		{"prerelease current: release", sv, "1.3.0-rc.1", []string{"1.3.0-rc.2", "1.3.0"}, "1.3.0"},
		{"range mentions a prerelease", Spec{Versioning: "semver", Range: ">=1.3.0-rc.0"}, "1.2.3",
			[]string{"1.3.0-rc.1", "1.2.4"}, "1.3.0-rc.1"},
		{"range without prerelease, prerelease current", Spec{Versioning: "semver", Range: "<2"}, "1.3.0-rc.1",
			[]string{"1.3.0-rc.2", "2.1.0-rc.1", "1.2.9"}, "1.3.0-rc.2"},
		{"exact range: downgrade", Spec{Versioning: "semver", Range: "=1.24.3"}, "1.25.0",
			[]string{"1.24.2", "1.24.3", "1.25.0", "1.25.1"}, "1.24.3"},
		{"exact range without operator: downgrade", Spec{Versioning: "semver", Range: "1.24.3"}, "1.25.0",
			[]string{"1.24.3", "1.25.1"}, "1.24.3"},
		{"exact range with spaces: downgrade", Spec{Versioning: "semver", Range: " = 1.24.3 "}, "1.25.0",
			[]string{"1.24.3", "1.25.1"}, "1.24.3"},
		{"exact range: upgrade", Spec{Versioning: "semver", Range: "=1.24.3"}, "1.23.0",
			[]string{"1.24.3", "1.25.1"}, "1.24.3"},
		{"exact range: tag missing", Spec{Versioning: "semver", Range: "=1.24.3"}, "1.25.0",
			[]string{"1.24.2", "1.25.0", "1.25.1"}, ""},
		{"exact range: already there", Spec{Versioning: "semver", Range: "=1.24.3"}, "1.24.3",
			[]string{"1.24.3", "1.25.1"}, ""},
		{"non-exact range: never a downgrade", Spec{Versioning: "semver", Range: "<1.25"}, "1.25.0",
			[]string{"1.24.3", "1.24.9"}, ""},
		{"tilde range: never a downgrade", Spec{Versioning: "semver", Range: "1.24"}, "1.25.0",
			[]string{"1.24.0", "1.24.3"}, ""},
		{"tie: build metadata", sv, "1.2.2", []string{"1.2.3+b", "1.2.3+a"}, "1.2.3+a"},
		{"tie: plainest tag", sv, "1.2.2", []string{"1.2.3+a", "1.2.3"}, "1.2.3"},
		// An explicit versioning decides on its own terms, also for a tag the
		// stream rule calls floating (DESIGN.md).
		{"current the stream rule calls floating", sv, "1.2", []string{"1.2", "1.2.1", "1.3.0"}, "1.3.0"},
		{"range ^1.0 moves 1.0", Spec{Versioning: "semver", Range: "^1.0"}, "1.0",
			[]string{"1.0", "1.0.1", "1.1", "1.1.2", "2.0.0"}, "1.1.2"},
		// A less precise tag is never a newer version (DESIGN.md).
		{"a bare number is no newer version", sv, "1.4.5", []string{"3050", "1.4.6"}, "1.4.6"},
		{"a bare number alone", sv, "1.4.5", []string{"3050", "2.0"}, ""},
		{"v prefix: fewer numbers", sv, "v1.4.5", []string{"v2", "v1.5.0+build"}, "v1.5.0+build"},
		{"a prerelease current: fewer numbers", sv, "1.4.5-rc.1", []string{"2-rc.2", "1.4.5-rc.2"}, "1.4.5-rc.2"},
		// A range that names a prerelease admits prereleases (Masterminds).
		{"range 1.x.x-0 admits prereleases", Spec{Versioning: "semver", Range: "1.x.x-0"}, "1.4.5",
			[]string{"1.5.0-rc.1", "1.4.6", "2.0.0-rc.1"}, "1.5.0-rc.1"},
		{"range >=1.0.0-0 admits prereleases", Spec{Versioning: "semver", Range: ">=1.0.0-0"}, "1.4.5",
			[]string{"1.5.0-rc.1", "2.0.0-rc.1"}, "2.0.0-rc.1"},
		{"range 1.x.x admits none", Spec{Versioning: "semver", Range: "1.x.x"}, "1.4.5",
			[]string{"1.5.0-rc.1", "2.0.0-rc.1"}, ""},
		{"mutable candidate never proposed", sv, "1.2.0", []string{"1.3", "1.3.0"}, "1.3.0"},
		{"pattern", Spec{Versioning: "semver", Pattern: `^(?P<version>v?\d+\.\d+\.\d+)-debian-\d+$`}, "1.2.3-debian-12",
			[]string{"1.3.0-debian-12", "1.4.0-debian-11", "1.5.0", "1.6.0-debian-x"}, "1.4.0-debian-11"},
	})
}
