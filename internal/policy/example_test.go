package policy_test

import (
	"fmt"

	"github.com/imagebot/imagebot/internal/policy"
)

// The default policy keeps the tag's stream: an -alpine image stays on
// -alpine, and numbers compare as numbers.
func ExamplePolicy_Latest() {
	p, err := policy.New(policy.Spec{})
	if err != nil {
		panic(err)
	}
	tags := []string{"7.2.4-alpine", "7.2.5", "7.2.5-alpine", "7.10.0-alpine", "7.9.0-alpine", "8.0.0-bookworm", "7-alpine", "latest"}
	fmt.Println(p.Latest("7.2.4-alpine", tags))
	fmt.Println(p.Latest("latest", tags)) // mutable: pinning is the caller's job
	// Output:
	// 7.10.0-alpine true <nil>
	//  false <nil>
}

// A pattern extracts the part to compare; numeric versioning compares it as a
// number.
func ExamplePolicy_Latest_pattern() {
	p, err := policy.New(policy.Spec{Pattern: `^build-(?P<version>\d+)$`, Versioning: "numeric"})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Latest("build-9", []string{"build-8", "build-9", "build-10", "build-10-debug"}))
	fmt.Println(p.Latest("abc", nil))
	// Output:
	// build-10 true <nil>
	//  false tag "abc" does not match pattern "^build-(?P<version>\d+)$"
}

// Semver with a range keeps node on its LTS line.
func ExamplePolicy_Latest_semver() {
	p, err := policy.New(policy.Spec{Versioning: "semver", Range: "<21"})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Latest("20.11.1", []string{"20.11.1", "20.12.2", "21.6.1", "20.13.0-rc.1"}))
	// Output:
	// 20.12.2 true <nil>
}

// To turn `latest` into a versioned tag, the caller resolves the candidates
// in this order and keeps the first whose digest matches.
func ExamplePolicy_PinCandidates() {
	p, err := policy.New(policy.Spec{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.PinCandidates([]string{"latest", "1.27", "1.27.3-bookworm", "1.26.2", "1.27.3", "mainline"}))
	// Output:
	// [1.27.3 1.27.3-bookworm 1.26.2]
}

// Decide ranks every candidate best first, so that a later check may pass
// over one for the next, and says why when there is none.
func ExamplePolicy_Decide() {
	p, err := policy.New(policy.Spec{})
	if err != nil {
		panic(err)
	}
	tags := []string{"20.11.1-alpine3.18", "20.12.0-alpine3.18", "20.12.2-alpine3.18", "22.3.0-alpine3.19", "20", "20.12.2"}
	for _, current := range []string{"20.11.1-alpine3.18", "20.12.2-alpine3.18", "20", "sha-3f9a2c1"} {
		d, err := p.Decide(current, tags)
		fmt.Printf("%s: %q %q %q %v\n", current, d.Candidates, d.Reason, d.Detail, err)
	}
	// Output:
	// 20.11.1-alpine3.18: ["20.12.2-alpine3.18" "20.12.0-alpine3.18"] "" "22.3.0 only as alpine3.19" <nil>
	// 20.12.2-alpine3.18: [] "other-variant" "22.3.0 only as alpine3.19" <nil>
	// 20: [] "floating" "20 floats, now 20.12.2 (pin: tag)" <nil>
	// sha-3f9a2c1: [] "no-version" "sha-3f9a2c1 has no version to compare, only a commit id: set a pattern and versioning to order such tags" <nil>
}

// An Index reads a listing once for every tag of one image.
func ExampleIndex_Decide() {
	p, err := policy.New(policy.Spec{})
	if err != nil {
		panic(err)
	}
	x := p.Index([]string{"9.3", "9.3-1361", "9.3-1361.1699548029", "9.3-1475", "9.4", "2.6.2-rev1-b5.1", "2.6.2-rev1-b5.2"})
	for _, current := range []string{"9.3-1361.1699548029", "9.3", "2.6.2-rev1-b5.1"} {
		d, _ := x.Decide(current)
		fmt.Printf("%s %v %q %q\n", current, d.Candidates, d.Reason, d.Detail)
	}
	// Output:
	// 9.3-1361.1699548029 [9.3-1475] "" ""
	// 9.3 [] "floating" "9.3 floats, now 9.3-1475 (pin: tag)"
	// 2.6.2-rev1-b5.1 [2.6.2-rev1-b5.2] "" ""
}

func ExampleNew() {
	_, err := policy.New(policy.Spec{Pattern: `^build-(\d+)$`})
	fmt.Println(err)
	_, err = policy.New(policy.Spec{Range: "<21"})
	fmt.Println(err)
	// Output:
	// pattern "^build-(\d+)$": needs a named group (?P<version>...) for the part to compare
	// range "<21": needs versioning semver, not ""
}

func ExampleMutable() {
	tags := []string{"1.26", "1.26.1", "7-alpine", "7.2.5-alpine", "15.4", "latest", "9.3", "9.3-1361", "alpine3.20"}
	for _, t := range []string{"latest", "1.26", "7-alpine", "15.4", "1.26.1", "9.3", "alpine3.20", "sha-3f9a2c1"} {
		fmt.Println(t, policy.Mutable(t, tags))
	}
	// Output:
	// latest true
	// 1.26 true
	// 7-alpine true
	// 15.4 false
	// 1.26.1 false
	// 9.3 true
	// alpine3.20 true
	// sha-3f9a2c1 false
}

func ExampleType() {
	fmt.Println(policy.Type("1.25.3", "2.0.0"))
	fmt.Println(policy.Type("1.25.3", "1.26.0"))
	fmt.Println(policy.Type("2.6.2-rev1-b5.1", "2.6.3-rev1-b1.2"))
	fmt.Println(policy.Type("2.6.2-rev1-b5.1", "2.6.2-rev1-b5.2"))
	fmt.Println(policy.Type("1.26.1", "1.26.1"))
	fmt.Println(policy.Type("latest", "1.26.1"))
	// Output:
	// major
	// minor
	// patch
	// build
	// digest
	// pin
}
