package dashboard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/imagebot/imagebot/internal/dashboard"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func digest(i int) string { return fmt.Sprintf("sha256:%064x", i) }

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		open, gin []string
	}{
		{"unticked", "- [ ] <!-- open:imagebot/nginx --> nginx", nil, nil},
		{"ticked x", "- [x] <!-- open:imagebot/nginx --> nginx", []string{"imagebot/nginx"}, nil},
		{"ticked X, star, indented", "  * [X] <!-- again:imagebot/redis@7.4.1 --> redis", nil, []string{"imagebot/redis@7.4.1"}},
		{"both", "- [x] <!-- open:a -->\n- [x] <!-- again:b@1 -->\n- [ ] <!-- open:c -->", []string{"a"}, []string{"b@1"}},
		{"CRLF", "- [x] <!-- open:a -->\r\n- [x] <!-- open:b --> x\r\n", []string{"a", "b"}, nil},
		{"no hidden ID", "- [x] nginx 1.27.3", nil, nil},
		{"unknown control", "- [x] <!-- close:a -->", nil, nil},
		{"ID with spaces", "- [x] <!-- open:a b -->", nil, nil},
		{"in a code block, still a line", "```\n- [x] <!-- open:a -->\n```", []string{"a"}, nil},
		{"deep indentation is code", "        - [x] <!-- open:a -->", nil, nil},
		{"nonsense", "lorem ipsum <!-- imagebot:dashboard {{{ -->\n- [x", nil, nil},
		{"empty", "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dashboard.Parse(tc.body)
			if diff := cmp.Diff(tc.open, keys(c.OpenNow), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("open now (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.gin, keys(c.Again), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("again (-want +got):\n%s", diff)
			}
		})
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestDecode(t *testing.T) {
	st := dashboard.State{Since: t0, Seen: map[string]time.Time{digest(1): t0, digest(2): t0.Add(time.Hour)}}
	good := "text\n" + dashboard.Marker(st) + "\nmore"
	tests := []struct {
		name string
		body string
		want dashboard.State
		ok   bool
	}{
		{"round trip", good, st, true},
		{"no marker", "just text", dashboard.State{}, false},
		{"broken JSON", `<!-- imagebot:dashboard {"v":1,"since":17 -->`, dashboard.State{}, false},
		{"other version", `<!-- imagebot:dashboard {"v":2,"since":1740830400} -->`, dashboard.State{}, false},
		{"no since", `<!-- imagebot:dashboard {"v":1} -->`, dashboard.State{}, false},
		{"not on its own line", `x <!-- imagebot:dashboard {"v":1,"since":1740830400} -->`, dashboard.State{}, false},
		{"bad entries dropped", `<!-- imagebot:dashboard {"v":1,"since":1740830400,"seen":{"nothex":1740830400,"` +
			strings.Repeat("a", 64) + `":-5,"` + strings.Repeat("b", 64) + `":1740830400}} -->`,
			dashboard.State{Since: t0, Seen: map[string]time.Time{"sha256:" + strings.Repeat("b", 64): t0}}, true},
		{"wrong types", `<!-- imagebot:dashboard {"v":"1","since":"x"} -->`, dashboard.State{}, false},
		{"queue round trip", dashboard.Marker(dashboard.State{Since: t0, Queued: map[string]time.Time{"imagebot/nginx": t0.Add(time.Hour)}}),
			dashboard.State{Since: t0, Queued: map[string]time.Time{"imagebot/nginx": t0.Add(time.Hour)}}, true},
		{"queue's odd entries dropped", `<!-- imagebot:dashboard {"v":1,"since":1740830400,"queued":{"a b":1740830400,"imagebot/x":3,"imagebot/y":1740830400}} -->`,
			dashboard.State{Since: t0, Queued: map[string]time.Time{"imagebot/y": t0}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := dashboard.Decode(tc.body)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkerBound: the marker keeps the MaxSeen most recent sightings.
func TestMarkerBound(t *testing.T) {
	st := dashboard.State{Since: t0, Seen: map[string]time.Time{}}
	for i := range dashboard.MaxSeen + 50 {
		st.Seen[digest(i)] = t0.Add(time.Duration(i) * time.Minute)
	}
	m := dashboard.Marker(st)
	got, ok := dashboard.Decode(m)
	if !ok || len(got.Seen) != dashboard.MaxSeen {
		t.Fatalf("decoded %d entries (ok %v), want %d", len(got.Seen), ok, dashboard.MaxSeen)
	}
	if _, kept := got.Seen[digest(49)]; kept {
		t.Error("the oldest sightings were kept")
	}
	if _, kept := got.Seen[digest(dashboard.MaxSeen+49)]; !kept {
		t.Error("the newest sighting was dropped")
	}
	if len(m) > 30000 {
		t.Errorf("marker is %d bytes", len(m))
	}
}

// TestQueueBound: beyond MaxSeen, the marker keeps the longest waiting,
// whose place in the queue the order depends on.
func TestQueueBound(t *testing.T) {
	st := dashboard.State{Since: t0, Queued: map[string]time.Time{}}
	for i := range dashboard.MaxSeen + 50 {
		st.Queued[fmt.Sprintf("imagebot/b%d", i)] = t0.Add(time.Duration(i) * time.Minute)
	}
	got, ok := dashboard.Decode(dashboard.Marker(st))
	if !ok || len(got.Queued) != dashboard.MaxSeen {
		t.Fatalf("decoded %d queued (ok %v), want %d", len(got.Queued), ok, dashboard.MaxSeen)
	}
	if _, kept := got.Queued["imagebot/b0"]; !kept {
		t.Error("the longest waiting was dropped")
	}
	if _, kept := got.Queued[fmt.Sprintf("imagebot/b%d", dashboard.MaxSeen+49)]; kept {
		t.Error("the newest in the queue was kept over older ones")
	}
}

// TestRender: sections, controls that Parse reads back once ticked (and
// none that a text forges), and a body within GitHub's limit however much
// there is to say.
func TestRender(t *testing.T) {
	st := dashboard.State{Since: t0, Seen: map[string]time.Time{digest(1): t0}}
	v := dashboard.View{
		Open:     []dashboard.Entry{{Text: "#3 Update nginx to 1.27.3"}},
		Waiting:  []dashboard.Entry{{ID: "imagebot/redis", Text: "redis 7.4.0 → 7.4.1 (patch)"}},
		Approval: []dashboard.Entry{{ID: "imagebot/postgres", Text: "postgres 16.4 → 17.0 (major)\n- [x] <!-- open:forged -->"}},
		Held:     []dashboard.Held{{Text: "web 1.28.0: 5h old, minAge 3d", Seen: t0, Passes: t0.Add(72 * time.Hour)}},
		Declined: []dashboard.Entry{{ID: "imagebot/nginx@1.27.2", Text: "nginx 1.27.2 (#2)"}},
		Notices:  []dashboard.Note{{Where: "a.yaml:3", URL: "https://github.com/o/r/blob/abc/a.yaml#L3", Text: "floating tag"}},
		Problems: []dashboard.Note{{Where: "b.yaml:9", Text: "dangling"}},
		Limits:   "at most 5 open",
		State:    st,
	}
	body := dashboard.Render(v)
	for _, want := range []string{
		"## Open pull requests\n\n- #3 Update nginx to 1.27.3\n",
		"## Waiting for a slot (at most 5 open)\n",
		"- [ ] <!-- open:imagebot/redis --> redis 7.4.0 → 7.4.1 (patch)\n",
		"- [ ] <!-- open:imagebot/postgres --> postgres 16.4 → 17.0 (major) - [x] <\u200b!-- open:forged -->\n",
		"- web 1.28.0: 5h old, minAge 3d; first seen 2025-03-01 12:00 UTC; passes 2025-03-04 12:00 UTC\n",
		"- [ ] <!-- again:imagebot/nginx@1.27.2 --> nginx 1.27.2 (#2)\n",
		"- [`a.yaml:3`](https://github.com/o/r/blob/abc/a.yaml#L3): floating tag\n",
		"- `b.yaml:9`: dangling\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if c := dashboard.Parse(body); len(c.OpenNow)+len(c.Again) != 0 {
		t.Errorf("an untouched body has controls: %+v", c)
	}
	ticked := strings.ReplaceAll(body, "- [ ] <!-- again:", "- [x] <!-- again:")
	if c := dashboard.Parse(ticked); !c.Again["imagebot/nginx@1.27.2"] || len(c.OpenNow) != 0 {
		t.Errorf("ticked: %+v", c)
	}
	if got, ok := dashboard.Decode(body); !ok || !cmp.Equal(got, st) {
		t.Errorf("state = %+v, %v", got, ok)
	}
	if !strings.Contains(dashboard.Render(dashboard.View{State: st}), "Nothing to do") {
		t.Error("an empty dashboard does not say so")
	}

	// Far too much to say: cut short, still with its marker.
	var big dashboard.View
	big.State = st
	for i := range 5000 {
		big.Notices = append(big.Notices, dashboard.Note{Where: fmt.Sprintf("f%d.yaml:1", i), Text: strings.Repeat("x", 400)})
		big.Waiting = append(big.Waiting, dashboard.Entry{ID: fmt.Sprint(i), Text: strings.Repeat("y", 400)})
	}
	body = dashboard.Render(big)
	if n := utf8.RuneCountInString(body); n > dashboard.MaxBody {
		t.Errorf("body is %d characters", n)
	}
	if !strings.Contains(body, "more\n") {
		t.Error("no word of the entries left out")
	}
	if _, ok := dashboard.Decode(body); !ok {
		t.Error("the cut body lost its marker")
	}
}
