package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestBuilds(t *testing.T) {
	listing := []string{"latest", "1.2.0", "main-3f9a2c1", "main-a0b1c2d", "sha-3f9a2c1", "main-0123abc", "pr-12-aaaaaaa"}
	for _, tc := range []struct {
		name    string
		spec    Spec
		current string
		want    string // joined by spaces
		err     string
	}{
		{name: "stream without pattern", spec: Spec{Order: OrderCreated}, current: "main-3f9a2c1", want: "main-3f9a2c1 main-a0b1c2d main-0123abc"},
		{name: "pattern without version group", spec: Spec{Order: OrderFirstSeen, Pattern: `^(main|sha)-[0-9a-f]{7}$`}, current: "main-3f9a2c1", want: "main-3f9a2c1 main-a0b1c2d sha-3f9a2c1 main-0123abc"},
		{name: "ignored left out", spec: Spec{Order: OrderCreated, Ignore: []string{"main-a*"}}, current: "main-3f9a2c1", want: "main-3f9a2c1 main-0123abc"},
		{name: "current off pattern", spec: Spec{Order: OrderCreated, Pattern: `^sha-`}, current: "main-3f9a2c1", err: "does not match pattern"},
		{name: "versioned current needs a pattern", spec: Spec{Order: OrderCreated}, current: "1.2.0", err: "needs a pattern"},
		{name: "latest needs a pattern", spec: Spec{Order: OrderCreated}, current: "latest", err: "needs a pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Index(listing).Builds(tc.current)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, strings.Fields(tc.want)) {
				t.Errorf("Builds = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOrderSpec(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		err  string
	}{
		{Spec{Order: "newest"}, `order "newest": want created or firstSeen`},
		{Spec{Order: OrderCreated, Versioning: "semver"}, "not with versioning"},
		{Spec{Pattern: `^main-`}, "needs a named group"},
		{Spec{Pattern: `^main-`, Order: OrderFirstSeen}, ""},
	} {
		_, err := New(tc.spec)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("New(%+v) = %v, want %q", tc.spec, err, tc.err)
		}
	}
}
