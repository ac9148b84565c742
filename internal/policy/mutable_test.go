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
		{"extension with letters", "1.26", []string{"1.26.x", "1.26.", "1.26..1", "1.26-1"}, false},
		{"extension before the suffix only", "7-alpine", []string{"7-alpine.1"}, false},
		{"empty listing", "1.0", nil, false},
		{"empty tag", "", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mutable(tc.tag, tc.tags); got != tc.want {
				t.Errorf("Mutable(%q, %q) = %v, want %v", tc.tag, tc.tags, got, tc.want)
			}
			// The one-pass index that Latest uses must agree.
			if got := mutableSet(tc.tags).has(tc.tag); got != tc.want {
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
	f.Fuzz(func(t *testing.T, listing string) {
		tags := strings.Split(listing, "\n")
		set := mutableSet(tags)
		for _, tag := range tags {
			if got, want := set.has(tag), Mutable(tag, tags); got != want {
				t.Errorf("mutableSet(%q).has(%q) = %v, Mutable = %v", tags, tag, got, want)
			}
		}
	})
}
