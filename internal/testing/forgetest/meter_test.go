package forgetest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestMeter: requests and writes are counted as told; a fault fires once,
// on the first request that matches its method (any case) and path, in
// the order queued, with its headers, and a queued header is the
// fault's own copy.
func TestMeter(t *testing.T) {
	var m Meter
	h := http.Header{"Retry-After": {"7"}}
	m.QueueFault(Fault{Method: "post", Path: "/pulls", Status: 422, Header: h})
	m.QueueFault(Fault{Status: 500})
	m.QueueFault(Fault{Method: "POST", Path: "/pulls", Status: 409})
	h.Set("Retry-After", "changed")

	m.CountRequest(false)
	m.CountRequest(true)
	m.CountWrites(2)
	m.CountWrites(-1)
	if m.Requests() != 2 || m.Writes() != 2 {
		t.Errorf("requests %d, writes %d, want 2 and 2", m.Requests(), m.Writes())
	}

	var got []int
	for _, req := range []struct{ method, target string }{
		{"POST", "/repos/o/r/pulls?x=1"}, // the 422
		{"GET", "/repos/o/r/pulls"},      // the 500, for any request
		{"GET", "/repos/o/r/pulls"},      // the 409 wants a POST
		{"POST", "/repos/o/r/issues"},    // nor this path
		{"POST", "/repos/o/r/pulls"},     // the 409
		{"POST", "/repos/o/r/pulls"},     // none left
	} {
		f, ok := m.TakeFault(req.method, req.target)
		if !ok {
			got = append(got, 0)
			continue
		}
		got = append(got, f.Status)
		if f.Status == 422 {
			w := httptest.NewRecorder()
			f.AddHeader(w)
			if w.Header().Get("Retry-After") != "7" {
				t.Errorf("the 422's Retry-After: %q, want the queued 7", w.Header().Get("Retry-After"))
			}
		}
	}
	if want := []int{422, 500, 0, 0, 409, 0}; !slices.Equal(got, want) {
		t.Errorf("faults fired %v, want %v", got, want)
	}
}
