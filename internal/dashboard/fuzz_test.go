package dashboard_test

import (
	"testing"

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
		again, ok := dashboard.Decode(dashboard.Marker(st))
		if !ok || !again.Since.Equal(st.Since) || len(again.Seen) != min(len(st.Seen), dashboard.MaxSeen) {
			t.Fatalf("state %+v came back as %+v (%v)", st, again, ok)
		}
	})
}
