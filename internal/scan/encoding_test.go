package scan

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

func utf16Bytes(s string, order binary.AppendByteOrder, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		b = order.AppendUint16(b, u)
	}
	return b
}

func utf32LE(s string) []byte {
	var b []byte
	for _, r := range s {
		b = binary.LittleEndian.AppendUint32(b, uint32(r))
	}
	return b
}

// TestEncoding: a file that is not UTF-8 is a problem that says so and what
// to do, at the line of the first bad byte; it yields no references. A
// UTF-8 BOM is UTF-8.
func TestEncoding(t *testing.T) {
	const manifest = "spec:\n  containers:\n    - image: nginx:1.25.3\n"
	for _, tc := range []struct {
		name string
		src  []byte
		line int
		msg  string // "" means no problem
	}{
		{"UTF-16LE with BOM", utf16Bytes(manifest, binary.LittleEndian, true), 1, "UTF-16LE (with byte order mark); convert it to UTF-8"},
		{"UTF-16BE with BOM", utf16Bytes(manifest, binary.BigEndian, true), 1, "UTF-16BE (with byte order mark)"},
		{"UTF-16LE without BOM", utf16Bytes(manifest, binary.LittleEndian, false), 1, "UTF-16LE (without byte order mark)"},
		{"UTF-16BE without BOM", utf16Bytes(manifest, binary.BigEndian, false), 1, "UTF-16BE (without byte order mark)"},
		{"UTF-32LE with BOM", utf32LE("\ufeffimage: nginx:1\n"), 1, "UTF-32LE (with byte order mark)"},
		{"UTF-32LE without BOM", utf32LE("image: nginx:1\n"), 1, "UTF-32LE (without byte order mark)"},
		{"Latin-1", []byte("# caf\xe9\n" + manifest), 1, "byte 0xE9 at line 1 is not UTF-8"},
		{"Latin-1 further down", []byte(manifest + "# na\xefve\n"), 4, "byte 0xEF at line 4"},
		{"NUL byte", []byte(manifest + "x: \x00\n"), 4, "NUL byte at line 4"},
		{"UTF-16 without an image", utf16Bytes("a: 1\n", binary.LittleEndian, true), 0, ""},
		{"Latin-1 without an image", []byte("a: caf\xe9\n"), 0, ""},
		{"UTF-8 BOM", []byte("\ufeff" + manifest), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := File("f.yaml", tc.src)
			if tc.msg == "" {
				if len(res.Problems) > 0 {
					t.Fatalf("problems %v, want none", res.Problems)
				}
				return
			}
			if len(res.Problems) != 1 || len(res.Refs) > 0 {
				t.Fatalf("refs %v, problems %v; want one problem", res.Refs, res.Problems)
			}
			p := res.Problems[0]
			if !errors.Is(p, ErrEncoding) || p.Line != tc.line || !strings.Contains(p.Error(), tc.msg) {
				t.Errorf("got %v (line %d), want ErrEncoding at line %d saying %q", p, p.Line, tc.line, tc.msg)
			}
		})
	}
}
