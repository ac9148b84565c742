package policy

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// decideCase is one call of Decide.
type decideCase struct {
	name    string
	spec    Spec
	current string
	tags    []string // the listing, or
	file    string   // testdata/tags/<file>.txt
	want    string   // the best candidate; "" for none
	all     []string // every candidate, when set
	typ     string   // Type(current, want), when set
	reason  string   // when want is ""
	detail  string
}

// runDecide checks every case on the listing as given and reversed: the
// decision never depends on the registry's order.
func runDecide(t *testing.T, cases []decideCase) {
	t.Helper()
	for _, tc := range cases {
		name := tc.name
		if name == "" {
			name = tc.file + ":" + tc.current
		}
		t.Run(name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatalf("New(%+v): %v", tc.spec, err)
			}
			tags := tc.tags
			if tc.file != "" {
				tags = listing(t, tc.file)
			}
			d, err := p.Decide(tc.current, tags)
			if err != nil {
				t.Fatalf("Decide(%q): %v", tc.current, err)
			}
			got := decideCase{want: first(d.Candidates), reason: d.Reason, detail: d.Detail}
			want := decideCase{want: tc.want, reason: tc.reason, detail: tc.detail}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(decideCase{})); diff != "" {
				t.Errorf("Decide(%q) mismatch (-want +got):\n%s", tc.current, diff)
			}
			if tc.all != nil && !slices.Equal(tc.all, d.Candidates) {
				t.Errorf("Decide(%q).Candidates = %q, want %q", tc.current, d.Candidates, tc.all)
			}
			if tc.typ != "" && tc.want != "" {
				if typ := Type(tc.current, tc.want); typ != tc.typ {
					t.Errorf("Type(%q, %q) = %q, want %q", tc.current, tc.want, typ, tc.typ)
				}
			}
			for i, c := range d.Candidates {
				if c == tc.current || !slices.Contains(tags, c) || slices.Contains(d.Candidates[:i], c) {
					t.Errorf("Decide(%q): candidate %q is the current tag, unlisted or repeated", tc.current, c)
				}
			}
			if r, _ := p.Decide(tc.current, reversed(tags)); !cmp.Equal(d, r) {
				t.Errorf("Decide(%q) = %+v; reversed listing: %+v", tc.current, d, r)
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// listing reads testdata/tags/<name>.txt: one tag a line, # comments.
func listing(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open("testdata/tags/" + name + ".txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if l := strings.TrimSpace(s.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if err := s.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestDecideExplicit: a versioning or pattern decides on its own terms. It
// never calls a tag with digits floating, and names no other variant; a
// tag it cannot read is an error, and a tag without digits still floats.
func TestDecideExplicit(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		current string
		tags    []string
		want    Decision
		err     string
	}{
		{"semver range ^1.0 moves 1.0", Spec{Versioning: "semver", Range: "^1.0"}, "1.0",
			[]string{"1.0", "1.0.1", "1.1", "1.1.2", "2.0.0"},
			Decision{Candidates: []string{"1.1.2", "1.0.1"}}, ""},
		{"numeric moves a tag the default calls floating", Spec{Versioning: "numeric"}, "2024.05",
			[]string{"2024.05", "2024.05.1", "2024.06", "2024.06.1"},
			Decision{Candidates: []string{"2024.06.1", "2024.05.1"}}, ""},
		{"pattern moves a tag the default calls floating", Spec{Pattern: `^(?P<version>\d+\.\d+)(\.\d+)?$`}, "1.26",
			[]string{"1.26", "1.26.1", "1.27", "1.27.2"},
			Decision{Candidates: []string{"1.27.2"}}, ""},
		{"no other-variant detail", Spec{Versioning: "semver"}, "1.2.3",
			[]string{"1.2.3", "1.2.4", "2.0.0-alpine"}, Decision{Candidates: []string{"1.2.4"}}, ""},
		{"up to date", Spec{Versioning: "semver"}, "1.2.3", []string{"1.2.3"}, Decision{Reason: ReasonUpToDate}, ""},
		{"latest floats under semver", Spec{Versioning: "semver"}, "latest", []string{"latest", "1.2.3"},
			Decision{Reason: ReasonFloating, Detail: "latest floats (pin: tag)"}, ""},
		{"the pattern is checked first", Spec{Pattern: `^build-(?P<version>\d+)$`}, "latest", nil,
			Decision{}, `tag "latest" does not match pattern "^build-(?P<version>\d+)$"`},
		{"versioning", Spec{Versioning: "semver"}, "1.2.3.4", nil, Decision{}, `tag "1.2.3.4" does not match versioning semver: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.Decide(tc.current, tc.tags)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("Decide(%q) error = %v, want prefix %q", tc.current, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, d, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Decide(%q) mismatch (-want +got):\n%s", tc.current, diff)
			}
		})
	}
}
