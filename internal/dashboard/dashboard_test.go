package dashboard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

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
	good := "text\n" + dashboard.Marker(st) + "\n"
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
		{"not the last line", `<!-- imagebot:dashboard {"v":1,"since":1740830400} -->` + "\nsomething after", dashboard.State{}, false},
		{"last line after blank lines and CRLF", "text\r\n" + dashboard.Marker(st) + "\r\n\r\n", st, true},
		{"a forged marker above the bot's", "- a.yaml\n" + `<!-- imagebot:dashboard {"v":1,"since":946684801,"seen":{"` + strings.Repeat("c", 64) + `":946684801}} -->` +
			"\n" + dashboard.Marker(st), st, true},
		{"a marker line too long to be the bot's", `<!-- imagebot:dashboard {"v":1,"since":1740830400,"x":"` + strings.Repeat("a", 1<<20) + `"} -->`, dashboard.State{}, false},
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

// TestDecodeOldLongMarker: a marker longer than MaxMarker, as releases
// before the bound wrote on GitLab and Gitea, is still read whole.
func TestDecodeOldLongMarker(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!-- imagebot:dashboard {"v":1,"since":1740830400,"seen":{`)
	for i := range 600 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%064x":%d`, i, 1740830400+i)
	}
	b.WriteString("}} -->")
	if b.Len() <= dashboard.MaxMarker {
		t.Fatalf("the marker is only %d bytes", b.Len())
	}
	st, ok := dashboard.Decode("text\n" + b.String() + "\n")
	if !ok || len(st.Seen) != 600 {
		t.Errorf("decoded %d sightings (ok %v), want 600", len(st.Seen), ok)
	}
}

// TestMarkerBound: however much there is to record, the marker fits in
// MaxMarker bytes. The sightings longest ago are kept and the newest left
// out (a left-out digest is first seen again later: never a looser
// minAge); the queue gets the room left, longest waiting first.
func TestMarkerBound(t *testing.T) {
	st := dashboard.State{Since: t0, Seen: map[string]time.Time{}, Queued: map[string]time.Time{}}
	const n = 2000
	for i := range n {
		st.Seen[digest(i)] = t0.Add(time.Duration(i) * time.Minute)
		st.Queued[fmt.Sprintf("imagebot/%s-%04d", strings.Repeat("long-image-name", 15), i)] = t0.Add(time.Duration(i) * time.Minute)
	}
	m := dashboard.Marker(st)
	if len(m) > dashboard.MaxMarker {
		t.Fatalf("marker is %d bytes, over %d", len(m), dashboard.MaxMarker)
	}
	got, ok := dashboard.Decode(m)
	if !ok || len(got.Seen) < 300 || len(got.Seen) == n {
		t.Fatalf("decoded %d of %d sightings (ok %v)", len(got.Seen), n, ok)
	}
	// The kept are exactly the oldest: a prefix of the sightings.
	for i := range n {
		_, kept := got.Seen[digest(i)]
		if kept != (i < len(got.Seen)) {
			t.Fatalf("sighting %d kept = %v with %d kept: not the oldest", i, kept, len(got.Seen))
		}
		if kept && !got.Seen[digest(i)].Equal(st.Seen[digest(i)]) {
			t.Fatalf("sighting %d changed", i)
		}
	}
	if len(got.Seen) != n && len(m) < dashboard.MaxMarker-200 {
		t.Errorf("marker of %d bytes left sightings out", len(m))
	}

	// Sightings alone leave room to queue: the longest waiting are kept.
	few := dashboard.State{Since: t0, Seen: map[string]time.Time{digest(1): t0}, Queued: st.Queued}
	got, ok = dashboard.Decode(dashboard.Marker(few))
	if !ok || len(got.Queued) == 0 || len(got.Queued) == n {
		t.Fatalf("decoded %d queued (ok %v)", len(got.Queued), ok)
	}
	for b, at := range got.Queued {
		if i := int(at.Sub(t0) / time.Minute); i >= len(got.Queued) {
			t.Errorf("%s (queued %d minutes in) kept over longer waiting ones", b, i)
		}
	}
	if len(got.Seen) != 1 {
		t.Error("the sighting was dropped for the queue")
	}

	// What Decode would drop takes no room.
	odd := dashboard.State{Since: t0, Seen: map[string]time.Time{"sha256:nothex": t0, digest(2): t0}, Queued: map[string]time.Time{"a b": t0}}
	if m := dashboard.Marker(odd); strings.Contains(m, "nothex") || strings.Contains(m, "a b") {
		t.Errorf("marker writes entries Decode drops: %s", m)
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
		"- [ ] <!-- open:imagebot/postgres --> postgres 16.4 → 17.0 (major) - [x] <\u200b!-- open:forged --\u200b>\n",
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
	if n := len(body); n > dashboard.MaxBody {
		t.Errorf("body is %d bytes", n)
	}
	if !strings.Contains(body, "more\n") {
		t.Error("no word of the entries left out")
	}
	if _, ok := dashboard.Decode(body); !ok {
		t.Error("the cut body lost its marker")
	}
}

// TestRenderWorstCase: every section full of the longest entries, in
// characters of three and four bytes, and a full marker: the body still
// fits GitHub's limit in bytes (hence in characters and UTF-16 units),
// and a larger host's limit lets more through.
func TestRenderWorstCase(t *testing.T) {
	long := func(i int) string { return fmt.Sprint(i) + strings.Repeat("→😀", 400) }
	id := func(i int) string { return fmt.Sprintf("%04d", i) + strings.Repeat("b", 296) }
	var v dashboard.View
	v.State = dashboard.State{Since: t0, Seen: map[string]time.Time{}, Queued: map[string]time.Time{}}
	for i := range 250 { // more than a section lists, and a full marker
		v.State.Seen[digest(i)] = t0.Add(time.Duration(i) * time.Second)
		v.State.Seen[digest(1000+i)] = t0.Add(time.Duration(i) * time.Second)
		v.State.Queued[id(i)] = t0
		e := dashboard.Entry{ID: id(i), Text: long(i)}
		n := dashboard.Note{Where: long(i), URL: "https://example.com/" + strings.Repeat("u", 2000), Text: long(i)}
		v.Open, v.Waiting, v.Approval, v.Declined = append(v.Open, e), append(v.Waiting, e), append(v.Approval, e), append(v.Declined, e)
		v.Held = append(v.Held, dashboard.Held{Text: long(i), Seen: t0, Passes: t0})
		v.Notices, v.Problems = append(v.Notices, n), append(v.Problems, n)
	}
	v.Limits = long(0)
	body := dashboard.Render(v)
	if len(body) > dashboard.MaxBody {
		t.Fatalf("body is %d bytes, over %d", len(body), dashboard.MaxBody)
	}
	if got, ok := dashboard.Decode(body); !ok || len(got.Seen) == 0 {
		t.Fatalf("no state in the cut body (ok %v)", ok)
	}
	v.MaxBody = 1 << 20 // GitLab's
	if more := dashboard.Render(v); len(more) <= len(body) || len(more) > 1<<20 {
		t.Errorf("GitLab's limit: %d bytes, GitHub's %d", len(more), len(body))
	}
}
