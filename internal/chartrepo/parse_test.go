package chartrepo

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// summary is a parsed index as name -> versions (newest first), with the
// app version of the newest.
func summary(x *index) map[string]string {
	out := map[string]string{}
	for name, vs := range x.charts {
		var s []string
		for _, v := range vs {
			s = append(s, v.Version.Original())
		}
		out[name] = strings.Join(s, " ")
		if len(vs) > 0 && vs[0].AppVersion != "" {
			out[name] += " app=" + vs[0].AppVersion
		}
	}
	return out
}

// TestParseLayouts: every way Helm reads an index is read the same, item
// by item where the layout allows and whole where it does not.
func TestParseLayouts(t *testing.T) {
	want := map[string]string{"nginx": "1.10.0 1.2.0 1.0.0 app=1.25", "redis": "2.0.0"}
	tests := []struct{ name, doc string }{
		{"helm's layout", `apiVersion: v1
entries:
  nginx:
  - apiVersion: v2
    appVersion: "1.25"
    created: "2024-01-02T03:04:05.000000006Z"
    description: |
      A web server.
      - not an item
    name: nginx
    urls:
    - nginx-1.10.0.tgz
    version: 1.10.0
  - version: 1.0.0
  - version: not-semver
  - version: 1.2.0
  redis:
  - version: 2.0.0
generated: "2024-01-02T03:04:05Z"
`},
		{"indented items, comments, blank lines, CRLF, document marker", "# comment\r\n---\r\napiVersion: v1\r\nentries:\r\n    # charts\r\n    nginx:\r\n        - appVersion: '1.25'\r\n\r\n          version: 1.10.0\r\n        # between\r\n        - version: 1.0.0\r\n        - version: 1.2.0\r\n    \"redis\": # quoted\r\n        -   version: 2.0.0\r\n"},
		{"JSON", `{"apiVersion":"v1","generated":"x","entries":{"nginx":[{"version":"1.0.0"},{"version":"1.10.0","appVersion":"1.25","maintainers":[{"name":"a"}]},null,{"version":"1.2.0"}],"redis":[{"version":"2.0.0"}]},"serverInfo":{"a":[1,2]}}`},
		{"a chart in flow style", "apiVersion: v1\nentries:\n  nginx: [{version: 1.0.0}, {version: 1.10.0, appVersion: '1.25'},\n    {version: 1.2.0}]\n  redis:\n  - version: 2.0.0\n"},
		{"entries in flow style", "entries: {nginx: [{version: 1.0.0}, {version: 1.10.0, appVersion: '1.25'}, {version: 1.2.0}], redis: [{version: 2.0.0}]}\napiVersion: v1\n"},
		{"apiVersion last, a second document ignored", "entries:\n  nginx:\n  - version: 1.0.0\n  - {version: 1.10.0, appVersion: '1.25'}\n  - version: 1.2.0\n  redis:\n  - version: 2.0.0\napiVersion: v1\n---\nentries: {evil: [{version: 9.9.9}]}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := parse(strings.NewReader(tc.doc), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, summary(x)); diff != "" {
				t.Errorf("charts (-want +got):\n%s", diff)
			}
			// Kept alone, a chart reads the same.
			x, err = parse(strings.NewReader(tc.doc), map[string]bool{"nginx": true})
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(x); got["nginx"] != want["nginx"] || len(got) != 1 || x.listed != 2 {
				t.Errorf("nginx alone: %q, want %q and no versions of redis", got, want["nginx"])
			}
		})
	}
}

// TestParseBad: what is not an index is an error saying where.
func TestParseBad(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"empty", "  \n", "empty"},
		{"plain text", "Not Found\n", "cannot unmarshal"},
		{"no apiVersion", "entries:\n  a:\n  - version: 1.0.0\n", "no apiVersion"},
		{"broken item", "apiVersion: v1\nentries:\n  a:\n  - version: [1.0.0\n", "chart \"a\" from line 4"},
		{"broken apiVersion", "entries:\n  a:\n  - version: 1.0.0\ngenerated: x\napiVersion: [v1\n", "line 5"},
		{"bad indentation", "apiVersion: v1\nentries:\n    a:\n    - version: 1.0.0\n  b:\n", "line 5"},
		{"broken JSON", `{"apiVersion":"v1","entries":{"a":[{"version":1}]}}`, "JSON at byte"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(strings.NewReader(tc.doc), nil)
			if err == nil || !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrNotIndex saying %q", err, tc.want)
			}
		})
	}
}
