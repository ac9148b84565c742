package adopt

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

// TestRenovateAgeNeverLooser: a minimumReleaseAge longer than any minAge
// (20000 weeks overflowed a duration and became minAge: 0s) skips the
// rule's images with a note, and the config validates; an age that fits
// converts exactly.
func TestRenovateAgeNeverLooser(t *testing.T) {
	src := `{
  "packageRules": [
    {"matchPackageNames": ["ghcr.io/acme/slow"], "minimumReleaseAge": "20000 weeks"},
    {"matchPackageNames": ["ghcr.io/acme/huge"], "stabilityDays": 99999999999999999999},
    {"matchPackageNames": ["ghcr.io/acme/fits"], "minimumReleaseAge": "2 weeks"}
  ]
}`
	res, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(src)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("does not validate: %v\n%s", err, res.Config)
	}
	for _, img := range []string{"ghcr.io/acme/slow", "ghcr.io/acme/huge"} {
		r := c.For(img, "apps/a.yaml")
		if !r.Skip {
			t.Errorf("%s: skip %v minAge %v, want skipped (no age short of Renovate's)\n%s", img, r.Skip, r.MinAge, res.Config)
		}
	}
	if r := c.For("ghcr.io/acme/fits", "apps/a.yaml"); r.Skip || r.MinAge.Hours() != 14*24 {
		t.Errorf("fits: skip %v minAge %v, want 14 days", r.Skip, r.MinAge)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), `minimumReleaseAge "20000 weeks" is longer than the 36500 days a minAge can say`) {
		t.Errorf("no note for the age that does not fit: %v", res.Notes)
	}
}

// TestRenovateSizeBounded: a 7.9 MB renovate.json5 (which took over 1 GiB
// before it was refused) is refused before it is read, naming the limit;
// one just under the limit is converted in bounded memory.
func TestRenovateSizeBounded(t *testing.T) {
	rules := func(n int) []byte {
		var b strings.Builder
		b.WriteString("{packageRules: [\n")
		for i := range n {
			fmt.Fprintf(&b, "  {matchPackageNames: ['ghcr.io/acme/service-number-%d'], allowedVersions: '<2.0.0'},\n", i)
		}
		b.WriteString("]}\n")
		return []byte(b.String())
	}
	big := rules(90_000)
	if len(big) < 7_900_000 {
		t.Fatalf("input is %d bytes, want 7.9 MB", len(big))
	}
	alloc := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var err error
	spent := alloc(func() {
		_, err = FromRenovate(t.Context(), fstest.MapFS{"renovate.json5": {Data: big}}, Options{})
	})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "renovate.json5: ") || !strings.Contains(err.Error(), fmt.Sprint(config.MaxSize)) {
		t.Errorf("7.9 MB renovate.json5: %v, want ErrTooLarge naming the file and the limit", err)
	}
	if spent > 1<<20 {
		t.Errorf("refusing 7.9 MB allocated %d bytes: it was read or parsed", spent)
	}

	// Under the limit: parsed and converted (the output is then too large
	// to write), in memory proportional to the input cap.
	under := rules(9_000)
	if len(under) > config.MaxSize {
		t.Fatalf("input is %d bytes, want under %d", len(under), config.MaxSize)
	}
	spent = alloc(func() {
		_, err = FromRenovate(t.Context(), fstest.MapFS{"renovate.json5": {Data: under}}, Options{})
	})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("%d bytes of rules: %v, want the output refused as too large", len(under), err)
	}
	t.Logf("%d bytes of Renovate config: %d MiB allocated in all", len(under), spent>>20)
	if spent > 512<<20 {
		t.Errorf("a config under the cap allocated %d MiB", spent>>20)
	}
}

// TestRenovateTypedAgeStricter: an age for major updates only applies to
// every update of the images (imagebot checks the age before it knows the
// type): stricter than Renovate, never dropped.
func TestRenovateTypedAgeStricter(t *testing.T) {
	src := `{"packageRules": [
  {"matchPackageNames": ["ghcr.io/acme/web"], "matchUpdateTypes": ["major"], "minimumReleaseAge": "14 days", "automerge": false},
  {"matchPackageNames": ["ghcr.io/acme/api"], "matchUpdateTypes": ["major"], "minimumReleaseAge": "20000 weeks"}
]}`
	res, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(src)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if r := c.For("ghcr.io/acme/web", "a.yaml"); r.MinAge.Hours() != 14*24 {
		t.Errorf("web minAge %v, want 14 days on every update\n%s", r.MinAge, res.Config)
	}
	if r := c.For("ghcr.io/acme/api", "a.yaml"); !r.Skip {
		t.Errorf("api: an age beyond any minAge must skip, got %+v", r)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), "the age applies to every update of these images") {
		t.Errorf("notes: %v", res.Notes)
	}
}
