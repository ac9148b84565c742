package forge_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestTokenPages: the continuation-token loop ends on the last page, on
// the caller's stop, on a token seen before (an error, not a loop) and at
// its cap.
func TestTokenPages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		next  map[string]string
		limit int
		read  int
		err   string
	}{
		{name: "to the end", next: map[string]string{"": "a", "a": "b", "b": ""}, read: 3},
		{name: "repeats a token", next: map[string]string{"": "a", "a": "b", "b": "a"}, read: 3, err: "list refs: page 3 repeats an earlier continuation token"},
		{name: "repeats its own", next: map[string]string{"": "a", "a": "a"}, read: 2, err: "repeats"},
		{name: "the first few", next: map[string]string{"": "a", "a": "b", "b": "c"}, limit: 2, read: 2},
	} {
		read := 0
		err := forge.TokenPages("list refs", tc.limit, func(tok string) (string, error) {
			read++
			return tc.next[tok], nil
		})
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
		if read != tc.read {
			t.Errorf("%s: read %d pages, want %d", tc.name, read, tc.read)
		}
	}
	read := 0
	err := forge.TokenPages("list refs", 0, func(string) (string, error) { read++; return strconv.Itoa(read), nil })
	if !errors.Is(err, forge.ErrTooManyPages) || read != forge.MaxPages {
		t.Errorf("endless listing: read %d, %v", read, err)
	}
}
