package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// latestCase is one call of Latest; want "" means ok=false.
type latestCase struct {
	name    string
	spec    Spec
	current string
	tags    []string
	want    string
}

type result struct {
	Tag string
	OK  bool
	Err string
}

// runLatest checks every case on the listing as given and reversed: the
// answer never depends on the registry's order.
func runLatest(t *testing.T, cases []latestCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatalf("New(%+v): %v", tc.spec, err)
			}
			want := result{Tag: tc.want, OK: tc.want != ""}
			for _, tags := range [][]string{tc.tags, reversed(tc.tags)} {
				tag, ok, err := p.Latest(tc.current, tags)
				got := result{Tag: tag, OK: ok}
				if err != nil {
					got.Err = err.Error()
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Latest(%q, %q) mismatch (-want +got):\n%s", tc.current, tags, diff)
				}
			}
		})
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string // prefix of the error; it names the field and value
	}{
		{"bad regexp", Spec{Pattern: `^build-(?P<version>\d+$`}, `pattern "^build-(?P<version>\d+$": error parsing regexp`},
		{"regexp without version group", Spec{Pattern: `^build-(\d+)$`}, `pattern "^build-(\d+)$": needs a named group`},
		{"regexp with another named group", Spec{Pattern: `^build-(?P<v>\d+)$`}, `pattern "^build-(?P<v>\d+)$": needs a named group`},
		{"bad range", Spec{Versioning: "semver", Range: "<<21"}, `range "<<21": `},
		{"range without versioning", Spec{Range: "<21"}, `range "<21": needs versioning semver`},
		{"range with numeric", Spec{Versioning: "numeric", Range: "<21"}, `range "<21": needs versioning semver`},
		{"unknown allow", Spec{Allow: "minr"}, `allow "minr": `},
		{"unknown versioning", Spec{Versioning: "calver"}, `versioning "calver": `},
		{"unknown pin", Spec{Pin: "sha"}, `pin "sha": `},
		{"bad ignore glob", Spec{Ignore: []string{"1.27.[", "1.0"}}, `ignore "1.27.[": `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err == nil {
				t.Fatalf("New(%+v) = %v, want error %q", tc.spec, p, tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("New(%+v) error = %q, want prefix %q", tc.spec, err, tc.want)
			}
		})
	}
}

func TestNewAccepts(t *testing.T) {
	tests := []struct {
		name     string
		spec     Spec
		wantSkip bool
		wantPin  string
	}{
		{"zero spec", Spec{}, false, ""},
		{"skip", Spec{Skip: true}, true, ""},
		{"pin tag", Spec{Pin: "tag"}, false, "tag"},
		{"pin digest", Spec{Pin: "digest", Allow: "major"}, false, "digest"},
		{"everything", Spec{
			Allow: "patch", Ignore: []string{"1.27.*", "2.0.0"}, Pattern: `^(?P<version>v?[\d.]+)(-alpine)?$`,
			Versioning: "semver", Range: ">=1.20 <3 || =0.9.1", Pin: "tag",
		}, false, "tag"},
		{"numeric", Spec{Versioning: "numeric", Allow: "minor"}, false, ""},
		{"alphabetical", Spec{Versioning: "alphabetical"}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatalf("New(%+v): %v", tc.spec, err)
			}
			got := []any{p.Skip(), p.Pin()}
			if diff := cmp.Diff([]any{tc.wantSkip, tc.wantPin}, got); diff != "" {
				t.Errorf("Skip, Pin mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLatestCurrentErrors(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		current string
		want    string
	}{
		{"pattern", Spec{Pattern: `^build-(?P<version>\d+)$`}, "abc1",
			`tag "abc1" does not match pattern "^build-(?P<version>\d+)$"`},
		{"pattern, no digits", Spec{Pattern: `^build-(?P<version>\d+)$`}, "abc",
			`tag "abc" does not match pattern "^build-(?P<version>\d+)$"`},
		{"optional group absent", Spec{Pattern: `^build(-(?P<version>\d+))?(-v\d+)?$`}, "build-v2",
			`tag "build-v2" does not match pattern "^build(-(?P<version>\d+))?(-v\d+)?$"`},
		{"semver", Spec{Versioning: "semver"}, "1.2.3.4",
			`tag "1.2.3.4" does not match versioning semver: `},
		{"numeric", Spec{Versioning: "numeric"}, "v1",
			`tag "v1" does not match versioning numeric: `},
		{"numeric in group", Spec{Versioning: "numeric", Pattern: `^build-(?P<version>.+)$`}, "build-1a",
			`tag "build-1a": version "1a" does not match versioning numeric: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			tag, ok, err := p.Latest(tc.current, []string{tc.current, "build-2", "1.2.4", "2"})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Latest(%q) error = %v, want prefix %q", tc.current, err, tc.want)
			}
			if tag != "" || ok {
				t.Errorf("Latest(%q) = %q, %v with an error, want \"\", false", tc.current, tag, ok)
			}
		})
	}
}

func TestIgnore(t *testing.T) {
	tags := []string{"1.27.0", "1.27.3", "1.27.4", "1.28.0", "1.28.1", "2.0.0"}
	runLatest(t, []latestCase{
		{"nothing ignored", Spec{}, "1.27.0", tags, "2.0.0"},
		{"exact", Spec{Ignore: []string{"2.0.0"}}, "1.27.0", tags, "1.28.1"},
		{"exact is not a prefix", Spec{Ignore: []string{"2.0"}}, "1.27.0", tags, "2.0.0"},
		{"glob", Spec{Ignore: []string{"2.*", "1.28.*"}}, "1.27.0", tags, "1.27.4"},
		{"glob on one character", Spec{Ignore: []string{"2.0.0", "1.28.?", "1.27.[4-9]"}}, "1.27.0", tags, "1.27.3"},
		{"everything newer ignored", Spec{Ignore: []string{"*"}}, "1.27.0", tags, ""},
	})
}

func TestAllow(t *testing.T) {
	tags := []string{"1.2.3", "1.2.9", "1.9.0", "1.10.1", "2.0.0", "10.0.0"}
	runLatest(t, []latestCase{
		{"default", Spec{}, "1.2.3", tags, "10.0.0"},
		{"major", Spec{Allow: "major"}, "1.2.3", tags, "10.0.0"},
		{"minor", Spec{Allow: "minor"}, "1.2.3", tags, "1.10.1"},
		{"patch", Spec{Allow: "patch"}, "1.2.3", tags, "1.2.9"},
		{"patch, nothing newer", Spec{Allow: "patch"}, "1.2.9", tags, ""},
		{"semver minor", Spec{Versioning: "semver", Allow: "minor"}, "1.2.3", tags, "1.10.1"},
		{"semver patch", Spec{Versioning: "semver", Allow: "patch"}, "1.2.0", []string{"1.3", "1.2.5", "2.2.6"}, "1.2.5"},
		{"numeric minor keeps the year", Spec{Versioning: "numeric", Allow: "minor"}, "2024.05.01",
			[]string{"2024.05.01", "2024.12.01", "2025.01.01"}, "2024.12.01"},
		{"numbers compare as numbers", Spec{Versioning: "numeric", Allow: "patch"}, "2024.5.1",
			[]string{"2024.05.09", "2024.06.01"}, "2024.05.09"},
		{"pattern: only the version group counts", Spec{Pattern: `^r(?P<version>\d+\.\d+)-\d+$`, Allow: "minor"}, "r1.2-7",
			[]string{"r1.3-1", "r2.0-8", "r1.2-9"}, "r1.3-1"},
		{"fewer numbers than allow fixes: the missing ones stay missing", Spec{Versioning: "alphabetical", Allow: "patch"}, "1-a",
			[]string{"1-c2", "1-b", "2-a"}, "1-b"},
		{"alphabetical minor keeps the date", Spec{Versioning: "alphabetical", Allow: "minor"}, "20240501T1200",
			[]string{"20240501T1300", "20240502T0900"}, "20240501T1300"},
	})
}

func TestPinCandidates(t *testing.T) {
	nginx := []string{
		"latest", "mainline", "1", "1.27", "1.27.2", "1.27.3-bookworm", "1.27.3", "1.27.3-alpine3.19",
		"1.27.3-alpine3.20", "1.27.3-alpine", "1.26.2", "1.27.3", "1.29.0-rc1", "alpine3.20",
	}
	node := []string{
		"lts", "20", "20.12", "20.12.2", "v20.12.2", "20.12.1", "21.0.0", "20.13.0-rc.1",
		"20.12.2-alpine", "18.20.0", "iron",
	}
	tests := []struct {
		name string
		spec Spec
		tags []string
		want []string
	}{
		{"plain tag before its variants; no floating tags, prereleases or duplicates", Spec{}, nginx, []string{
			"1.27.3", "1.27.3-alpine", "1.27.3-alpine3.20", "1.27.3-alpine3.19", "1.27.3-bookworm", "1.27.2", "1.26.2",
		}},
		{"allow does not apply", Spec{Allow: "patch"}, []string{"1.2.3", "2.0.0", "1.3.0"}, []string{"2.0.0", "1.3.0", "1.2.3"}},
		{"ignore applies", Spec{Ignore: []string{"*-alpine*", "1.26.2"}}, nginx, []string{
			"1.27.3", "1.27.3-bookworm", "1.27.2",
		}},
		{"pattern applies", Spec{Pattern: `^(?P<version>[\d.]+)-alpine[\d.]*$`}, nginx, []string{
			"1.27.3-alpine", "1.27.3-alpine3.20", "1.27.3-alpine3.19",
		}},
		{"semver range, no prereleases", Spec{Versioning: "semver", Range: "<21"}, node, []string{
			"20.12.2", "v20.12.2", "20.12.1", "18.20.0",
		}},
		{"semver without range, no prereleases", Spec{Versioning: "semver"}, node, []string{
			"21.0.0", "20.12.2", "v20.12.2", "20.12.1", "18.20.0",
		}},
		{"numeric", Spec{Versioning: "numeric", Pattern: `^build-(?P<version>\d+)$`},
			[]string{"build-9", "build-10", "build-x", "latest", "build-100", "build-2"},
			[]string{"build-100", "build-10", "build-9", "build-2"}},
		{"nothing", Spec{}, []string{"latest", "stable"}, []string{}},
		{"commits after versions", Spec{}, []string{"sha-3f9a2c1", "1.2.3", "latest"}, []string{"1.2.3", "sha-3f9a2c1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, tags := range [][]string{tc.tags, reversed(tc.tags)} {
				if diff := cmp.Diff(tc.want, p.PinCandidates(tags)); diff != "" {
					t.Errorf("PinCandidates(%q) mismatch (-want +got):\n%s", tags, diff)
				}
			}
		})
	}
}
