package scan

import (
	"bytes"
	"unicode/utf8"
)

// lines maps yaml.v3's 1-based line and rune column to byte offsets.
type lines struct {
	src    []byte
	starts []int // byte offset where each line begins
}

var bom = []byte("\xef\xbb\xbf")

func newLines(src []byte) *lines {
	l := &lines{src: src, starts: []int{0}}
	// yaml.v3 does not count a leading BOM as a column.
	if bytes.HasPrefix(src, bom) {
		l.starts[0] = len(bom)
	}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			l.starts = append(l.starts, i+1)
		case '\r':
			// A lone CR is a line break to YAML too; CRLF is one break.
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// offset returns the byte offset of a 1-based line and rune column, or -1.
func (l *lines) offset(line, col int) int {
	if line < 1 || line > len(l.starts) || col < 1 {
		return -1
	}
	off := l.starts[line-1]
	for c := 1; c < col; c++ {
		if off >= len(l.src) || l.src[off] == '\n' || l.src[off] == '\r' {
			return -1
		}
		_, size := utf8.DecodeRune(l.src[off:])
		off += size
	}
	return off
}

// lineEnd returns the offset of the line break that ends the line holding
// off (or len(src)), and the break itself ("\n", "\r\n", "\r" or "").
func (l *lines) lineEnd(off int) (int, string) {
	for i := off; i < len(l.src); i++ {
		switch l.src[i] {
		case '\n':
			return i, "\n"
		case '\r':
			if i+1 < len(l.src) && l.src[i+1] == '\n' {
				return i, "\r\n"
			}
			return i, "\r"
		}
	}
	return len(l.src), l.someBreak()
}

// someBreak is the file's own line ending, for text inserted at its end.
func (l *lines) someBreak() string {
	if i := bytes.IndexByte(l.src, '\n'); i > 0 && l.src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
