package adopt

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Note is something a conversion could not carry over, or a step left to the
// user, at the place in the repository that said it.
type Note struct {
	File string // slash path relative to the repository root; "" for the repository as a whole
	Line int    // 1-based; 0 when the note is about the whole file
	Msg  string
}

// String prints the note as "file:line: message", the form editors jump to.
func (n Note) String() string {
	switch {
	case n.File == "":
		return n.Msg
	case n.Line == 0:
		return n.File + ": " + n.Msg
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
}

// notes collects notes without repeats.
type notes []Note

func (ns *notes) add(file string, line int, format string, args ...any) {
	n := Note{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	if !slices.Contains(*ns, n) {
		*ns = append(*ns, n)
	}
}

// sorted orders notes by file and line, keeping the order of notes at one place.
func (ns notes) sorted() []Note {
	out := slices.Clone([]Note(ns))
	slices.SortStableFunc(out, func(a, b Note) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out
}

// lines finds the 1-based line of a byte offset by binary search over the
// offsets of src's line breaks: a file of up to maxFile bytes may hold
// hundreds of thousands of nodes or markers, and counting breaks from the
// top for each would take quadratic time.
type lines []int

func newLines(src []byte) lines {
	var ls lines
	for i, b := range src {
		if b == '\n' {
			ls = append(ls, i)
		}
	}
	return ls
}

// of is the line of byte offset off: one more than the breaks before it.
func (ls lines) of(off int) int { return 1 + sort.SearchInts(ls, off) }
