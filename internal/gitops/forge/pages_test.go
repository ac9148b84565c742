package forge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestPages: the one paging loop ends on the last page, on the caller's
// stop, on a page that links back (an error, not a loop) and at its cap.
func TestPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		next  map[int]int // page -> next
		limit int
		stop  int // the caller stops after this page
		read  []int
		err   string
	}{
		{name: "to the end", next: map[int]int{1: 2, 2: 3, 3: 0}, read: []int{1, 2, 3}},
		{name: "caller stops", next: map[int]int{1: 2, 2: 3, 3: 0}, stop: 2, read: []int{1, 2}},
		{name: "skips ahead", next: map[int]int{1: 5, 5: 0}, read: []int{1, 5}},
		{name: "links back", next: map[int]int{1: 2, 2: 1}, read: []int{1, 2}, err: "list things: page 2 links back to page 1"},
		{name: "links to itself", next: map[int]int{1: 1}, read: []int{1}, err: "page 1 links back to page 1"},
		{name: "the first few", next: map[int]int{1: 2, 2: 3, 3: 4}, limit: 2, read: []int{1, 2}},
	} {
		var read []int
		err := forge.Pages("list things", tc.limit, func(n int) (int, error) {
			read = append(read, n)
			if n == tc.stop {
				return 0, nil
			}
			return tc.next[n], nil
		})
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
		if len(read) != len(tc.read) {
			t.Errorf("%s: read %v, want %v", tc.name, read, tc.read)
		}
	}
	// A listing read to the end stops at MaxPages, an error.
	read := 0
	err := forge.Pages("list things", 0, func(n int) (int, error) { read++; return n + 1, nil })
	if !errors.Is(err, forge.ErrTooManyPages) || read != forge.MaxPages || !strings.Contains(err.Error(), "list things: too many pages") {
		t.Errorf("endless listing: read %d, %v", read, err)
	}
	boom := errors.New("boom")
	if err := forge.Pages("x", 0, func(int) (int, error) { return 2, boom }); err != boom {
		t.Errorf("a page's error: %v", err)
	}
}
