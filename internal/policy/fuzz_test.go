package policy

import (
	"slices"
	"strings"
	"testing"
)

// fuzzSpecs are the policies FuzzLatest runs; the fuzzer picks one by index.
var fuzzSpecs = []Spec{
	{},
	{Allow: "minor"},
	{Allow: "patch", Ignore: []string{"*-rc*", "1.2.?"}},
	{Versioning: "semver"},
	{Versioning: "semver", Range: "<21"},
	{Versioning: "semver", Range: "=1.24.3"},
	{Versioning: "semver", Range: ">=1.0.0-0", Allow: "minor"},
	{Versioning: "numeric"},
	{Versioning: "numeric", Pattern: `^build-(?P<version>[\d.]+)$`},
	{Versioning: "alphabetical"},
	{Pattern: `^(?P<version>v?\d+(\.\d+)*)(-.*)?$`},
}

// FuzzLatest checks that Latest never panics and that whatever it proposes
// comes from the listing, is not the current tag, and does not float; and
// that the answer does not depend on the listing's order. PinCandidates gets
// the same checks.
func FuzzLatest(f *testing.F) {
	f.Add(uint8(0), "7.2.4-alpine", "7.2.5-alpine\n7.2.5\n8.0.1-alpine\n7-alpine\nlatest")
	f.Add(uint8(3), "v1.7.0", "1.9.0\nv1.9.0-rc.0\nv1.8.1\nv1\nv1.8")
	f.Add(uint8(4), "20.11.1", "20.12.2\n21.0.0\n20.13.0-rc.1\n20\n20.12")
	f.Add(uint8(5), "1.25.0", "1.24.3\n1.25.1\nv1.24.3")
	f.Add(uint8(8), "build-9", "build-10\nbuild-9.1\nbuild-x")
	f.Add(uint8(9), "20240501T1200", "20240502T0900\n2024\n")
	f.Add(uint8(1), "2.6.2-rev1-b5.1", "2.6.3-rev1-b1.2\n2.6.3-rev1-b1\n3.0.0-rev1-b1.1")
	f.Add(uint8(10), "1.02", "1.2\n01.3\n1.3.0")
	f.Fuzz(func(t *testing.T, spec uint8, current, listing string) {
		p, err := New(fuzzSpecs[int(spec)%len(fuzzSpecs)])
		if err != nil {
			t.Fatal(err)
		}
		tags := strings.Split(listing, "\n")
		tag, ok, err := p.Latest(current, tags)
		switch {
		case err != nil && (ok || tag != ""):
			t.Fatalf("Latest(%q, %q) = %q, %v, %v: a result with an error", current, tags, tag, ok, err)
		case ok != (tag != ""):
			t.Fatalf("Latest(%q, %q) = %q, %v: ok must say whether there is a tag", current, tags, tag, ok)
		case ok && !slices.Contains(tags, tag):
			t.Fatalf("Latest(%q, %q) = %q: not in the listing", current, tags, tag)
		case ok && tag == current:
			t.Fatalf("Latest(%q, %q) = %q: the current tag", current, tags, tag)
		case ok && Mutable(tag, tags):
			t.Fatalf("Latest(%q, %q) = %q: a mutable tag", current, tags, tag)
		}
		rtag, rok, rerr := p.Latest(current, reversed(tags))
		if rtag != tag || rok != ok || (rerr == nil) != (err == nil) {
			t.Fatalf("Latest(%q, %q) = %q, %v, %v; reversed listing: %q, %v, %v", current, tags, tag, ok, err, rtag, rok, rerr)
		}

		pins := p.PinCandidates(tags)
		for i, c := range pins {
			if !slices.Contains(tags, c) || Mutable(c, tags) || slices.Contains(pins[:i], c) {
				t.Fatalf("PinCandidates(%q) = %q: %q is unlisted, mutable or repeated", tags, pins, c)
			}
		}
		if rpins := p.PinCandidates(reversed(tags)); !slices.Equal(pins, rpins) {
			t.Fatalf("PinCandidates(%q) = %q; reversed listing: %q", tags, pins, rpins)
		}
	})
}
