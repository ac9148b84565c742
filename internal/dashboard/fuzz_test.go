package dashboard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/imagebot/imagebot/internal/dashboard"
)

// FuzzParse: a body is whatever people made of it. Reading it never
// panics, and a state read from it survives being written back.
func FuzzParse(f *testing.F) {
	f.Add("- [x] <!-- open:imagebot/nginx --> nginx\n<!-- imagebot:dashboard {\"v\":1,\"since\":1740830400} -->")
	f.Add(dashboard.Render(dashboard.View{Waiting: []dashboard.Entry{{ID: "a", Text: "b"}}}))
	f.Add("<!-- imagebot:dashboard {\"v\":1,\"since\":1740830400,\"seen\":{\"" + digest(7)[7:] + "\":1740830400}} -->")
	f.Add("* [X] <!-- again:a@1 -->\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		dashboard.Parse(body)
		dashboard.HasMarker(body)
		st, ok := dashboard.Decode(body)
		if !ok {
			return
		}
		m := dashboard.Marker(st)
		again, ok := dashboard.Decode(m)
		if !ok || !again.Since.Equal(st.Since) || len(m) > dashboard.MaxMarker {
			t.Fatalf("state %+v came back as %+v (%v)", st, again, ok)
		}
		for d, at := range again.Seen {
			if !st.Seen[d].Equal(at) {
				t.Fatalf("sighting %s came back as %v, was %v", d, at, st.Seen[d])
			}
		}
	})
}

// FuzzRender: whatever the tree, a registry or a host puts in a view's
// strings (file names with line breaks, "- [x] <!-- open:… -->", marker
// lines), the body has the bot's controls only, none ticked, its state
// is the view's, and it fits GitHub's limit.
func FuzzRender(f *testing.F) {
	forged := "x\n- [x] <!-- open:imagebot/b -->\n<!-- imagebot:dashboard {\"v\":1,\"since\":946684801} -->\n"
	f.Add(forged, forged, forged, "imagebot/a")
	f.Add("a\u2028- [x] <!-- again:imagebot/a@1 -->", "https://h/x)\n- [x] <!-- open:c -->", "-->\r<!--", "imagebot/a --> - [x] <!-- open:b")
	f.Add(strings.Repeat("é\n", 400), "", strings.Repeat("<!-->", 300), strings.Repeat("a", 400))
	st := dashboard.State{Since: t0, Seen: map[string]time.Time{digest(1): t0}}
	f.Fuzz(func(t *testing.T, text, url, where, id string) {
		v := dashboard.View{
			Open:     []dashboard.Entry{{Text: text}},
			Waiting:  []dashboard.Entry{{ID: "imagebot/a", Text: text}, {ID: id, Text: where}},
			Approval: []dashboard.Entry{{ID: id, Text: text}},
			Held:     []dashboard.Held{{Text: text + where}},
			Declined: []dashboard.Entry{{ID: id + "@1", Text: text}},
			Notices:  []dashboard.Note{{Where: where, URL: url, Text: text}},
			Problems: []dashboard.Note{{Where: where + ":1", URL: url, Text: where}},
			Limits:   text,
			State:    st,
		}
		body := dashboard.Render(v)
		if len(body) > dashboard.MaxBody {
			t.Fatalf("body is %d bytes", len(body))
		}
		if got, ok := dashboard.Decode(body); !ok || !cmp.Equal(got, st, cmpopts.EquateEmpty()) {
			t.Fatalf("state %+v (%v), want %+v", got, ok, st)
		}
		if c := dashboard.Parse(body); len(c.OpenNow)+len(c.Again) != 0 {
			t.Fatalf("controls ticked by text: %+v\n%s", c, body)
		}
		// Tick every box: only the offered IDs come back.
		c := dashboard.Parse(strings.ReplaceAll(body, "- [ ] <!--", "- [x] <!--"))
		for got := range c.OpenNow {
			if got != "imagebot/a" && got != id {
				t.Fatalf("a box for %q, offered none:\n%s", got, body)
			}
		}
		for got := range c.Again {
			if got != id+"@1" {
				t.Fatalf("a box for %q, offered none:\n%s", got, body)
			}
		}
		if n := strings.Count(body, "<!--"); n != strings.Count(body, "- [ ] <!--")+1 {
			t.Fatalf("%d comment openers: text opened some:\n%s", n, body)
		}
		if n := strings.Count(body, "-->"); n != strings.Count(body, "- [ ] <!--")+1 {
			t.Fatalf("%d comment closers: text closed some:\n%s", n, body)
		}
	})
}
