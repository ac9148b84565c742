package scan

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrEncoding marks a file that is not UTF-8 text. imagebot edits bytes in
// place and promises to change nothing else, which it can only keep in the
// one encoding it reads; the file is left untouched.
var ErrEncoding = errors.New("not UTF-8, left untouched")

// boms are the byte order marks YAML allows besides UTF-8's; the 4-byte
// ones come first, as UTF-32LE's starts with UTF-16LE's.
var boms = []struct {
	mark []byte
	name string
}{
	{[]byte{0xff, 0xfe, 0, 0}, "UTF-32LE"},
	{[]byte{0, 0, 0xfe, 0xff}, "UTF-32BE"},
	{[]byte{0xff, 0xfe}, "UTF-16LE"},
	{[]byte{0xfe, 0xff}, "UTF-16BE"},
}

// encoding returns a Problem for a file that is not UTF-8, or nil. A file in
// another encoding that cannot hold a reference (no "image" in it, in any
// byte order) is no problem, as any other file without one.
func encoding(file string, src []byte) *Problem {
	at := func(line, col int, format string, args ...any) *Problem {
		return &Problem{Location: Location{File: file, Line: line, Col: col}, Err: fmt.Errorf("%w: "+format, append([]any{ErrEncoding}, args...)...)}
	}
	if wide, bom := wideEncoding(src); wide != "" {
		if !bytes.Contains(bytes.ReplaceAll(src, []byte{0}, nil), []byte("image")) {
			return nil
		}
		with := "without"
		if bom {
			with = "with"
		}
		return at(1, 0, "the file is %s (%s byte order mark); convert it to UTF-8 (iconv -f %s -t UTF-8)", wide, with, wide)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line, col := lineCol(src, i)
		return at(line, col, "NUL byte at line %d: a binary file, not YAML text", line)
	}
	if utf8.Valid(src) || !bytes.Contains(src, []byte("image")) {
		return nil
	}
	i := invalidUTF8(src)
	line, col := lineCol(src, i)
	return at(line, col, "byte 0x%02X at line %d is not UTF-8 (Latin-1 or Windows-1252?); convert the file to UTF-8", src[i], line)
}

// wideEncoding names a UTF-16 or UTF-32 file, by its byte order mark or,
// without one, by the zero bytes of its first character (YAML 1.2, 5.2).
func wideEncoding(src []byte) (name string, bom bool) {
	for _, b := range boms {
		if bytes.HasPrefix(src, b.mark) {
			return b.name, true
		}
	}
	if len(src) < 4 {
		return "", false
	}
	switch {
	case src[0] == 0 && src[1] == 0 && src[2] == 0:
		return "UTF-32BE", false
	case src[1] == 0 && src[2] == 0 && src[3] == 0:
		return "UTF-32LE", false
	case src[0] == 0:
		return "UTF-16BE", false
	case src[1] == 0:
		return "UTF-16LE", false
	}
	return "", false
}

func invalidUTF8(src []byte) int {
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(src)
}

// lineCol is the 1-based line and character column of a byte offset.
func lineCol(src []byte, off int) (int, int) {
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(src[start:off])
}
