package policy

import "testing"

func TestAlphabetical(t *testing.T) {
	alpha := Spec{Versioning: "alphabetical"}
	runLatest(t, []latestCase{
		{"timestamps", alpha, "20240501T1200", []string{"20231231T2359", "20240501T1300", "20240502T0900"}, "20240502T0900"},
		{"text, not numbers", alpha, "build-9", []string{"build-10", "build-8"}, ""},
		{"nothing newer", alpha, "20240501T1200", []string{"20240501T1200", "20240501T1100"}, ""},
		{"pattern", Spec{Versioning: "alphabetical", Pattern: `^main-(?P<version>\d{8}T\d{4})-[0-9a-f]+$`},
			"main-20240501T1200-abc123", []string{
				"main-20240601T0000-def456", "main-20240501T1100-aaa", "dev-20250101T0000-fff", "main-20240701T0000-xyz",
			}, "main-20240601T0000-def456"},
		{"current without digits", alpha, "latest", []string{"latest", "stable"}, ""},
		// An explicit versioning decides on its own terms, also for a tag the
		// stream rule calls floating.
		{"current the stream rule calls floating", alpha, "1.2", []string{"1.2", "1.2.1", "1.3"}, "1.3"},
		{"mutable candidate never proposed", alpha, "1.1", []string{"1.2", "1.2.1"}, "1.2.1"},
	})
}
