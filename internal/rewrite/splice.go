package rewrite

import (
	"fmt"
	"sort"

	"github.com/imagebot/imagebot/internal/scan"
)

// Edit replaces the bytes of Span with Text; an empty span inserts.
type Edit struct {
	Span scan.Span
	Text string
}

// Apply returns src with the edits spliced in. Edits may come in any order
// but must not overlap; two insertions at one offset are applied in the
// order given. src is not modified.
func Apply(src []byte, edits []Edit) ([]byte, error) {
	sorted := make([]Edit, len(edits))
	copy(sorted, edits)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Start < sorted[j].Span.Start })
	out := make([]byte, 0, len(src)+64)
	last := 0
	for _, e := range sorted {
		s := e.Span
		if s.Start < last || s.End < s.Start || s.End > len(src) {
			return nil, fmt.Errorf("edit [%d,%d) overlaps another or lies outside %d bytes", s.Start, s.End, len(src))
		}
		out = append(out, src[last:s.Start]...)
		out = append(out, e.Text...)
		last = s.End
	}
	return append(out, src[last:]...), nil
}
