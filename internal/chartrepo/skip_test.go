package chartrepo

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseSkips (issue 25 item 9): what the plan does not need is never
// decoded: top-level keys other than apiVersion and entries, the charts
// not named, an entry's fields that are not read. So a YAML error there
// is no error, and a chart's fields are read however they are spelled.
func TestParseSkips(t *testing.T) {
	doc := `apiVersion: v1
serverInfo: {broken: [
entries:
  broken: [{version: 1.0.0
  alsobroken:
  - version: [1.0.0
    description: |
      - version: 9.9.9
  nginx:
  - description: "first, and dropped: version: 9.9.9"
    "version": 1.10.0
    annotations: {broken: [
    'appVersion': "1.25"
    maintainers:
    - name: a
      version: 9.9.9
    created: "2024-01-02T03:04:05Z"
    digest: abc
    urls:
    - nginx-1.10.0.tgz
  -
    version: 1.2.0
    # a comment
    sources: [https://github.com/acme/nginx]
  - {version: 1.0.0, description: "flow"}
  - version: 1.1.0
    description: >-
      folded

      version: 9.9.9
    home: https://nginx.org
generated: [broken
`
	x, err := parse(strings.NewReader(doc), map[string]bool{"nginx": true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"nginx": "1.10.0 1.2.0 1.1.0 1.0.0 app=1.25"}, summary(x)); diff != "" {
		t.Errorf("charts (-want +got):\n%s", diff)
	}
	if x.listed != 3 {
		t.Errorf("%d charts listed, want 3", x.listed)
	}
	v := x.charts["nginx"]
	if v[0].Digest != "abc" || v[0].Created.IsZero() || len(v[0].URLs) != 1 || len(v[1].Sources) != 1 || v[2].Home != "https://nginx.org" {
		t.Errorf("fields lost: %+v", v)
	}
	// Every chart asked for: the broken ones are errors, as Helm's.
	if _, err := parse(strings.NewReader(doc), nil); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("every chart: err = %v, want the broken chart at line 4", err)
	}
}

// TestParseSkipsJSON: a JSON index skips the same, and still reads a
// chart named after one that is not.
func TestParseSkipsJSON(t *testing.T) {
	doc := `{"serverInfo":{"a":[1,{"b":null}]},"entries":{"odd":[{"version":[1]},"not an entry"],"nginx":[{"version":"1.0.0","maintainers":[{"version":"9.9.9"}]},{"version":"1.2.0","appVersion":"1.25"}]},"apiVersion":"v1"}`
	x, err := parse(strings.NewReader(doc), map[string]bool{"nginx": true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"nginx": "1.2.0 1.0.0 app=1.25"}, summary(x)); diff != "" || x.listed != 2 {
		t.Errorf("charts (-want +got):\n%s\n%d listed, want 2", diff, x.listed)
	}
	if _, err := parse(strings.NewReader(doc), nil); err == nil {
		t.Error("every chart: no error, want odd's entries refused")
	}
	if _, err := parse(strings.NewReader(strings.Replace(doc, `"not an entry"]`, `"not an entry"`, 1)), map[string]bool{"nginx": true}); err == nil {
		t.Error("broken JSON in a chart not named: no error, want the syntax refused")
	}
}

// TestParseBounds: what is decoded at once is bounded whatever the
// index's size: a chart in flow style and an entry's fields by a cap
// saying so, a top-level key the index does not need not at all.
func TestParseBounds(t *testing.T) {
	big := strings.Repeat("x", maxWholeBytes)
	defer func(n int) { maxVersions = n }(maxVersions)
	maxVersions = 1000
	var many strings.Builder
	many.WriteString("apiVersion: v1\nentries:\n  a:\n")
	for i := range maxVersions + 1 {
		fmt.Fprintf(&many, "  - version: 0.%d.%d\n", i/1000, i%1000)
	}
	tests := []struct{ name, doc, want string }{
		{"versions kept", many.String(), "over 1000 versions of the charts asked for"},
		{"flow chart", "apiVersion: v1\nentries:\n  a: [{version: 1.0.0, home: " + big + "}]\n", "the chart at line 3 is over 2 MiB"},
		{"one entry", "apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n  - version: 1.1.0\n    home: " + big[:maxEntryBytes] + "\n", "the entry of chart \"a\" at line 5 holds over 256 KiB"},
		{"flow entries", "apiVersion: v1\nentries: {a: [{version: 1.0.0, home: " + big + "}]}\n", "the top-level value from line 2 is over 2 MiB"},
		{"skipped key", "apiVersion: v1\nserverInfo:\n  x: " + big + big + "\nentries:\n  a:\n  - version: 1.0.0\n    description: " + big + "\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := parse(strings.NewReader(tc.doc), map[string]bool{"a": true})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "":
				if len(x.charts["a"]) != 1 {
					t.Errorf("a: %v", x.charts["a"])
				}
			case err == nil || !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), tc.want):
				t.Errorf("err = %v, want ErrNotIndex saying %q", err, tc.want)
			}
		})
	}
}

// TestSplitKey: keys located on their line, values not decoded.
func TestSplitKey(t *testing.T) {
	tests := []struct {
		line, key, value string
		ok               bool
	}{
		{"nginx:", "nginx", "", true},
		{"nginx: [{a: 1}", "nginx", " [{a: 1}", true},
		{`"a: b": x`, `"a: b"`, " x", true},
		{`'it''s' : x`, `'it''s'`, " x", true},
		{`"esc\"aped":`, `"esc\"aped"`, "", true},
		{"a:b: c", "a:b", " c", true},
		{"url: http://x", "url", " http://x", true},
		{"a #c: x", "", "", false},
		{"[a]: x", "", "", false},
		{"? a", "", "", false},
		{"&anchor a: x", "", "", false},
		{`"open: x`, "", "", false},
		{"plain text", "", "", false},
	}
	for _, tc := range tests {
		k, v, ok := splitKey([]byte(tc.line))
		if string(k) != tc.key || string(v) != tc.value || ok != tc.ok {
			t.Errorf("splitKey(%q) = %q, %q, %v; want %q, %q, %v", tc.line, k, v, ok, tc.key, tc.value, tc.ok)
		}
	}
}
