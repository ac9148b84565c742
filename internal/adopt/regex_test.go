package adopt

import (
	"errors"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegexGlobs(t *testing.T) {
	tests := []struct {
		re   string
		want []string
		err  bool
	}{
		{re: `^.*\.sig$`, want: []string{"*.sig"}},
		{re: `^1\.0\.2$`, want: []string{"1.0.2"}},
		{re: `1.0.2`, want: []string{"*1?0?2*"}}, // unanchored, `.` is any character, as Flux reads it
		{re: `^1\.1\.1$|^1\.0\.0$`, want: []string{"1.1.1", "1.0.0"}},
		{re: `^v[0-9]\.`, want: []string{"v[0-9].*"}},
		{re: `^\d+$`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.re, func(t *testing.T) {
			got, err := regexGlobs(tc.re)
			if (err != nil) != tc.err {
				t.Fatalf("regexGlobs(%q) error %v, want error %v", tc.re, err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("regexGlobs(%q) (-want +got):\n%s", tc.re, diff)
			}
		})
	}
}

func TestExtractGroup(t *testing.T) {
	tests := []struct{ pattern, extract, want string }{
		{`^build-(?P<num>\d+)$`, `$num`, `^build-(?P<version>\d+)$`},
		{`^RELEASE\.(?P<timestamp>.*)Z$`, `${timestamp}`, `^RELEASE\.(?P<version>.*)Z$`},
		{`^(main|dev)-(\d+)-[a-f0-9]+$`, `$2`, `^(main|dev)-(?P<version>\d+)-[a-f0-9]+$`},
		{`^(?P<version>v)(?P<ts>\d+)$`, `$ts`, `^(?P<version_>v)(?P<version>\d+)$`},
	}
	for _, tc := range tests {
		got, err := extractGroup(tc.pattern, tc.extract)
		if err != nil || got != tc.want {
			t.Errorf("extractGroup(%q, %q) = %q, %v; want %q", tc.pattern, tc.extract, got, err, tc.want)
		}
	}
	if _, err := extractGroup(`^(?P<a>\d+)\.(?P<b>\d+)$`, `$a.$b`); err == nil {
		t.Error("extractGroup assembling two groups: want an error")
	}
}

func TestVersionSpan(t *testing.T) {
	tests := []struct{ re, tag, version string }{
		{`^build-(?<major>\d+)$`, "build-11", "11"},
		{`^(?<major>\d+)\.(?<minor>\d+)\.(?<patch>\d+)(-(?<compatibility>.*))?$`, "3.12.1-slim", "3.12.1-slim"},
		{`^v(?<major>\d+)\.(?<minor>\d+)\.(?<patch>\d+)-ls(?<build>.+)$`, "v1.2.3-ls45", "1.2.3-ls45"},
	}
	for _, tc := range tests {
		p, err := versionSpan(tc.re)
		if err != nil {
			t.Fatalf("versionSpan(%q): %v", tc.re, err)
		}
		re := regexp.MustCompile(p)
		m := re.FindStringSubmatch(tc.tag)
		if m == nil || m[re.SubexpIndex("version")] != tc.version {
			t.Errorf("versionSpan(%q) = %q: version of %q is %q, want %q", tc.re, p, tc.tag, m, tc.version)
		}
	}
}

func TestHashScheme(t *testing.T) {
	tests := []struct {
		tag, pattern string
		hashOnly     bool
	}{
		{"main-20240601-3f9a2c1", `^(?P<version>main-\d+)-[0-9a-f]{7,40}$`, false},
		{"v2.4.0-12-g3a4b5c6", `^(?P<version>v\d+\.\d+\.\d+-\d+)-g[0-9a-f]{7,40}$`, false},
		{"sha-3f9a2c1", "", true},
		{"1.25.3-bookworm", "", false},
		{"20240501T1200", "", false},
	}
	for _, tc := range tests {
		p, hashOnly, _ := hashScheme(tc.tag)
		if p != tc.pattern || hashOnly != tc.hashOnly {
			t.Errorf("hashScheme(%q) = %q, %v; want %q, %v", tc.tag, p, hashOnly, tc.pattern, tc.hashOnly)
		}
	}
}

// TestRenovateDuration: an age too long for a duration is errAgeTooLong,
// never wrapped around to a short (or zero) one.
func TestRenovateDuration(t *testing.T) {
	for in, want := range map[string]string{
		"3 days": "3d", "12 hours": "12h", "1 week": "7d", "30 minutes": "30m", "2 months": "error",
		"5214 weeks": "36498d", "20000 weeks": "too long", "99999999999999999999 days": "too long",
		"9223372036854775807 minutes": "too long", "18446744073709551616 hours": "too long",
	} {
		d, err := renovateDuration(in)
		got := d.String()
		switch {
		case errors.Is(err, errAgeTooLong):
			got = "too long"
		case err != nil:
			got = "error"
		}
		if got != want {
			t.Errorf("renovateDuration(%q) = %q, want %q", in, got, want)
		}
	}
}
