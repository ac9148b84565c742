package policy

import (
	"strings"
	"testing"
)

func TestMutable(t *testing.T) {
	tests := []struct {
		name string
		tag  string
		tags []string
		want bool
	}{
		{"latest", "latest", []string{"latest", "1.0"}, true},
		{"stable", "stable", nil, true},
		{"mainline", "mainline", []string{"mainline"}, true},
		{"minor floats over patch", "1.26", []string{"1.26", "1.26.1"}, true},
		{"major floats over minor and patch", "1", []string{"1", "1.26.1"}, true},
		{"several extra numbers", "1.26", []string{"1.26.1.2"}, true},
		{"with suffix", "7-alpine", []string{"7-alpine", "7.2.5-alpine"}, true},
		{"with prefix", "v1", []string{"v1", "v1.2.0"}, true},
		{"alone", "15.4", []string{"15.4", "15.5", "16.0.1"}, false},
		{"longer number is not an extension", "15.4", []string{"15.40", "15.41.1"}, false},
		{"other suffix", "1.26", []string{"1.26.1-alpine"}, false},
		{"other suffix, suffixed tag", "7-alpine", []string{"7.2.5", "7.2.5-alpine3.19", "7.2.5-bookworm"}, false},
		{"other prefix", "v1", []string{"1.2.0"}, false},
		{"extension with letters", "1.26", []string{"1.26.x", "1.26.", "1.26..1", "1.26-x1"}, false},
		{"extended by a build counter", "1.26", []string{"1.26-1"}, true},
		{"UBI: a release floats over its builds", "9.3", []string{"9.3-1361", "9.3-1361.1699548029", "9.4"}, true},
		{"UBI: a build floats over its timestamped build", "9.3-1361", []string{"9.3-1361.1699548029"}, true},
		{"UBI: the timestamped build does not float", "9.3-1361.1699548029", []string{"9.3-1361", "9.3-1475"}, false},
		{"SUSE: the version floats over its builds", "2.6.3", []string{"2.6.3-rev1-b1.2"}, true},
		{"SUSE: a shorter counter form floats", "2.6.3-rev1", []string{"2.6.3-rev1-b1.2"}, true},
		{"SUSE: another counter form does not", "2.6.3-b1", []string{"2.6.3-rev1-b1.2"}, false},
		{"temurin: the major floats over the full version", "26-jdk-jammy", []string{"26.0.2_10-jdk-jammy"}, true},
		{"temurin: a GA build does not float", "26_35-jdk-jammy", []string{"26.0.2_10-jdk-jammy"}, false},
		{"temurin 8 floats over its updates", "8-jdk-jammy", []string{"8u402-b06-jdk-jammy"}, true},
		{"a release does not float over commit builds", "v2.4.0", []string{"v2.4.0-12-g3a4b5c6"}, false},
		{"a commit id never floats", "main-20240612-a0b1c2d", []string{"main-20240612-a0b1c2d-1"}, false},
		{"variant without a version", "alpine3.20", []string{"1.27.3-alpine3.20"}, true},
		{"Java variant without a version", "jdk21", nil, true},
		{"Windows release", "1809", []string{"ltsc2022", "10.0.17763.5458"}, true},
		{"Windows release with an arch", "1809-amd64", []string{"ltsc2022-amd64"}, true},
		{"1809 outside Windows is a version", "1809", []string{"1810", "1.0.0"}, false},
		{"a prerelease floats only over its own kind", "1.27", []string{"1.27.0-rc1"}, false},
		{"rabbitmq prerelease alias", "4.0-rc-management", []string{"4.0.0-rc.1-management"}, false},
		{"short sha", "sha-3f9a2c1", []string{"sha-3f9a2c1"}, false},
		{"all-digit short sha", "1234567", nil, false},
		{"extension before the suffix only", "7-alpine", []string{"7-alpine.1"}, false},
		{"empty listing", "1.0", nil, false},
		{"empty tag", "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mutable(tc.tag, tc.tags); got != tc.want {
				t.Errorf("Mutable(%q, %q) = %v, want %v", tc.tag, tc.tags, got, tc.want)
			}
			// The one-pass index that Decide uses must agree.
			if got := setFloats(tc.tag, tc.tags); got != tc.want {
				t.Errorf("mutableSet(%q).has(%q) = %v, want %v", tc.tags, tc.tag, got, tc.want)
			}
		})
	}
}

// FuzzMutable checks that the index Latest uses agrees with Mutable, the
// rule as documented, for every tag of any listing.
func FuzzMutable(f *testing.F) {
	f.Add("1.26\n1.26.1\n7-alpine\n7.2.5-alpine\nv1\nv1.2.0\n15.4\nlatest")
	f.Add("1..2\n1.\n.1\n1.2.3.4-x\n1.2-x\na1.2\na1")
	f.Add("9.3\n9.3-1361\n9.3-1361.1699548029\n2.6.3\n2.6.3-rev1-b1.2\n2.6.3-rev1\nv2.4.0\nv2.4.0-12-g3a4b5c6")
	f.Add("26-jdk-jammy\n26.0.2_10-jdk-jammy\n8-jdk\n8u402-b06-jdk\n1809\nltsc2022\nalpine3.20\n1.27.3-alpine3.20")
	f.Fuzz(func(t *testing.T, listing string) {
		tags := strings.Split(listing, "\n")
		for _, tag := range tags {
			if got, want := setFloats(tag, tags), Mutable(tag, tags); got != want {
				t.Errorf("mutableSet(%q).has(%q) = %v, Mutable = %v", tags, tag, got, want)
			}
		}
	})
}

// setFloats asks the one-pass index what Mutable answers pair by pair.
func setFloats(current string, tags []string) bool {
	win := windowsListing(tags) || isWindowsTag(current)
	parsed := make([]*tag, len(tags))
	for i, u := range tags {
		parsed[i] = parseTag(u, win)
	}
	return mutableSet(parsed).has(parseTag(current, win))
}
