package rewrite

import (
	"testing"

	"github.com/imagebot/imagebot/internal/scan"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		edits []Edit
		want  string
		err   bool
	}{
		{"none", "abc", nil, "abc", false},
		{"replace", "a: 1.2\n", []Edit{{scan.Span{Start: 3, End: 6}, "1.3"}}, "a: 1.3\n", false},
		{"insert at end", "x:1", []Edit{{scan.Span{Start: 3, End: 3}, "@d"}}, "x:1@d", false},
		{"unordered", "0123456789", []Edit{{scan.Span{Start: 8, End: 9}, "X"}, {scan.Span{Start: 1, End: 2}, "Y"}}, "0Y234567X9", false},
		{"overlap", "0123456789", []Edit{{scan.Span{Start: 1, End: 5}, "X"}, {scan.Span{Start: 4, End: 6}, "Y"}}, "", true},
		{"outside", "01", []Edit{{scan.Span{Start: 1, End: 5}, "X"}}, "", true},
		{"backwards", "01", []Edit{{scan.Span{Start: 1, End: 0}, "X"}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.src), tc.edits)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if err == nil && string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"1.25", "1.30", `"1.30"`}, // float: Helm would read 1.3
		{"15.4", "15.10", `"15.10"`},
		{"v1.2", "v1.3", "v1.3"},
		{"20240101", "20240215", "20240215"}, // int stays int
		{"build-9", "123", `"123"`},          // was a string, must stay one
		{"a", "true", `"true"`},
		{"a", "null", `"null"`},
	}
	for _, tc := range tests {
		if got := quote(tc.old, tc.new); got != tc.want {
			t.Errorf("quote(%q, %q) = %s, want %s", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestStale(t *testing.T) {
	src := []byte("image: nginx:1.25.3\n")
	refs, _ := scanFile(src)
	changed := []byte("image: nginx:1.25.4\n")
	if _, _, err := Bytes(changed, changesFor(refs, "1.26.1")); err == nil {
		t.Fatal("want ErrStale for a file changed after the scan")
	}
}
