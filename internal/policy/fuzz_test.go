package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// FuzzLatest checks that Decide (and Latest, its first candidate) never
// panics; that every candidate comes from the listing, once, is not the
// current tag and does not float; that a decision without candidates says
// why; and that nothing depends on the listing's order or on reading the
// listing once for several tags. PinCandidates gets the same checks.
func FuzzLatest(f *testing.F) {
	f.Add(uint8(0), "7.2.4-alpine", "7.2.5-alpine\n7.2.5\n8.0.1-alpine\n7-alpine\nlatest")
	f.Add(uint8(3), "v1.7.0", "1.9.0\nv1.9.0-rc.0\nv1.8.1\nv1\nv1.8")
	f.Add(uint8(4), "20.11.1", "20.12.2\n21.0.0\n20.13.0-rc.1\n20\n20.12")
	f.Add(uint8(5), "1.25.0", "1.24.3\n1.25.1\nv1.24.3")
	f.Add(uint8(8), "build-9", "build-10\nbuild-9.1\nbuild-x")
	f.Add(uint8(9), "20240501T1200", "20240502T0900\n2024\n")
	f.Add(uint8(1), "2.6.2-rev1-b5.1", "2.6.3-rev1-b1.2\n2.6.3-rev1-b1\n3.0.0-rev1-b1.1")
	f.Add(uint8(10), "1.02", "1.2\n01.3\n1.3.0")
	f.Add(uint8(0), "20.11.1-alpine3.18", "20.12.0-alpine3.18\n22.3.0-alpine3.19\n20-alpine3.18")
	f.Add(uint8(0), "9.3-1361.1699548029", "9.3-1475\n9.4\n9.3\n9.3-1361")
	f.Add(uint8(0), "main-20240601-3f9a2c1", "main-20240612-a0b1c2d\ndev-20240701-1234abc\n1234567")
	f.Add(uint8(0), "v2.4.0-12-g3a4b5c6", "v2.4.0-31-g9d8e7f6\nv2.5.0-3-g0a1b2c3\nv2.5.0")
	f.Add(uint8(0), "3.12.0rc2", "3.12.0\n3.12.1\n3.13.0a1\n3.12")
	f.Add(uint8(0), "8u402-b06-jdk-jammy", "8u412-b08-jdk-jammy\n8-jdk-jammy\n21.0.2_13-jdk-jammy")
	f.Add(uint8(0), "10.0.17763.5458", "10.0.17763.5576\n10.0.20348.2340\nltsc2022\n1809")
	f.Add(uint8(0), "RELEASE.2024-03-05T04-48-44Z", "RELEASE.2024-05-10T01-41-38Z\nRELEASE.2024-05-10T01-41-38Z.fips")
	f.Add(uint8(0), "alpine3.19-x86_64-v16.11.1", "alpine3.19-x86_64-v17.0.0\nx86_64-8fa89735\nx86_64-v17.0.0-servercore21H2")
	f.Add(uint8(0), "1.40.2.8395-c67dce28e-ls212", "1.40.3.8555-fef15d30c-ls214\nversion-1.40.3.8555\n1.40.2.8395-c67dce28e")
	f.Add(uint8(0), "v1.29.3-k3s2", "v1.29.4-k3s1\nv1.29.2-k0s.1\nv1.29.3-rke2r1-build20240315\nv1.29.3")
	f.Add(uint8(0), "2022-CU12-ubuntu-22.04", "2022-CU13-GDR1-ubuntu-22.04\n2022-CU13-ubuntu-22.04\n2.3.1-cu121")
	f.Add(uint8(0), "0.108.0-b.1", "0.108.0\n0.108.0-a.2\n7.2.0-v10\n1.2.3-linux-arm-v7\n1.0.0.GA-20.1770236070")
	f.Add(uint8(0), "3.10-main-412", "3.10-main-530\n3.10-main\n11-jdk-main-9\n3.9.6-eclipse-temurin-21")
	f.Add(uint8(0), "2.4-php-202301051200", "2.4.58-php-202301051200\n3-php-202406010900\n2.4.58-php")
	f.Add(uint8(0), "9.2", "9.4\n9.4-1214\n9.4-1181.1712567892\n23-ea-12\n24-ea-3\n10.0.20348.2340")
	f.Add(uint8(3), "1.4.5", "3050\nv1.6.0\n1.5.0-rc.1\n1.5.0.1")
	f.Add(uint8(6), "1.4.5", "1.5.0-rc.1\n2\n1.4")
	f.Fuzz(func(t *testing.T, spec uint8, current, listing string) {
		p, err := New(fuzzSpecs[int(spec)%len(fuzzSpecs)])
		if err != nil {
			t.Fatal(err)
		}
		tags := strings.Split(listing, "\n")
		d, err := p.Decide(current, tags)
		switch {
		case err != nil && !cmp.Equal(d, Decision{}):
			t.Fatalf("Decide(%q, %q) = %+v, %v: a decision with an error", current, tags, d, err)
		case err == nil && (len(d.Candidates) == 0) == (d.Reason == ""):
			t.Fatalf("Decide(%q, %q) = %+v: a reason exactly when there is no candidate", current, tags, d)
		}
		for i, c := range d.Candidates {
			if !slices.Contains(tags, c) || c == current || slices.Contains(d.Candidates[:i], c) || Mutable(c, tags) {
				t.Fatalf("Decide(%q, %q) = %q: %q is unlisted, current, repeated or floating", current, tags, d.Candidates, c)
			}
		}
		r, rerr := p.Decide(current, reversed(tags))
		if !cmp.Equal(d, r) || (rerr == nil) != (err == nil) {
			t.Fatalf("Decide(%q, %q) = %+v, %v; reversed listing: %+v, %v", current, tags, d, err, r, rerr)
		}
		x := p.Index(tags)
		for _, other := range tags { // the index holds no state from one Decide to the next
			_, _ = x.Decide(other)
		}
		if xd, _ := x.Decide(current); !cmp.Equal(d, xd) {
			t.Fatalf("Index(%q).Decide(%q) = %+v after other tags; Decide: %+v", tags, current, xd, d)
		}
		if tag, ok, lerr := p.Latest(current, tags); tag != first(d.Candidates) || ok != (tag != "") || (lerr == nil) != (err == nil) {
			t.Fatalf("Latest(%q, %q) = %q, %v, %v; Decide: %+v, %v", current, tags, tag, ok, lerr, d, err)
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
		_ = Type(current, first(d.Candidates))
	})
}
