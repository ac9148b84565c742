package scan

import (
	"bytes"
	"unicode/utf8"
)

// lines maps yaml.v3's 1-based line and rune column to byte offsets, in
// time independent of the line's length: a 5 MiB JSON document on one line
// has hundreds of thousands of nodes on that line, and walking its runes
// from the line's start for each of them took minutes.
type lines struct {
	src    []byte
	starts []int // byte offset where each line begins
	// marks holds, for each line already looked up, the byte offset of
	// every markEvery-th rune; nil for a line of ASCII, where a column is
	// a byte count.
	marks map[int][]int
	steps int // runes walked to answer lookups, for the test that keeps it linear
}

// markEvery bounds the runes walked per lookup on a non-ASCII line.
const markEvery = 64

var bom = []byte("\xef\xbb\xbf")

func newLines(src []byte) *lines {
	l := &lines{src: src, starts: []int{0}, marks: map[int][]int{}}
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
// The column may point just past the line's last character, at its break.
func (l *lines) offset(line, col int) int {
	if line < 1 || line > len(l.starts) || col < 1 {
		return -1
	}
	start, end := l.starts[line-1], l.end(line)
	m, ok := l.marks[line]
	if !ok {
		m = l.index(start, end)
		l.marks[line] = m
	}
	if m == nil {
		if off := start + col - 1; off <= end {
			return off
		}
		return -1
	}
	k := (col - 1) / markEvery
	if k >= len(m) {
		return -1
	}
	off := m[k]
	for c := k * markEvery; c < col-1; c++ {
		l.steps++
		if off >= end {
			return -1
		}
		_, size := utf8.DecodeRune(l.src[off:end])
		off += size
	}
	return off
}

// index returns the marks of the line [start, end), or nil if it is ASCII.
func (l *lines) index(start, end int) []int {
	ascii := true
	l.steps += end - start
	for _, b := range l.src[start:end] {
		if b >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return nil
	}
	var m []int
	for off, r := start, 0; ; r++ {
		l.steps++
		if r%markEvery == 0 {
			m = append(m, off)
		}
		if off >= end {
			return m
		}
		_, size := utf8.DecodeRune(l.src[off:end])
		off += size
	}
}

// end returns the offset of the break that ends a 1-based line, or len(src)
// for the last line.
func (l *lines) end(line int) int {
	if line >= len(l.starts) {
		return len(l.src)
	}
	e := l.starts[line] - 1 // the last byte of the break: '\n' or a lone '\r'
	if l.src[e] == '\n' && e > l.starts[line-1] && l.src[e-1] == '\r' {
		e--
	}
	return e
}

// lineEnd returns where a 1-based line ends and the break that ends it
// ("\n", "\r\n", "\r"), or the file's own break when it is the last line.
func (l *lines) lineEnd(line int) (int, string) {
	e := l.end(line)
	if line >= len(l.starts) {
		return e, l.someBreak()
	}
	return e, string(l.src[e:l.starts[line]])
}

// someBreak is the file's own line ending, for text inserted at its end.
func (l *lines) someBreak() string {
	if i := bytes.IndexByte(l.src, '\n'); i > 0 && l.src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
