package scan

import (
	"testing"
	"unicode/utf8"
)

// FuzzFile: on any bytes, File does not panic, every span lies inside the
// file and spells the value it claims, every location is a line of the
// file, and no message runs on.
func FuzzFile(f *testing.F) {
	for _, s := range []string{
		"image: nginx:1.25.3\n",
		"\xef\xbb\xbfa:\r\n  image: 'x:1' # c\r\n",
		"- {image: \"ghcr.io/a/b:v1@sha256:0000000000000000000000000000000000000000000000000000000000000000\"}\n",
		"images:\n  - name: a\n    newTag: 1.2\n",
		"image:\n  repository: r\n  tag: 1.25\n  digest:\n",
		"x: &a redis:7\ny:\n  image: *a\n",
		"v: q:1 # imagebot: tag ghcr.io/x/y\n---\nimage: n:1\n...\n",
		"image: |\n  nginx:1\n",
		"image: ${IMAGE}\n",
		`{"items":[{"image":"nginx:1"},{"image":"é:1"}]}`,
		"a: é\nimage: &x !!str nginx:1\nb: *x\n",
		"spec:\n  - image: a:1\n - image: b:1\n",
		"image: \"x:1\n",
		"\xff\xfei\x00m\x00a\x00g\x00e\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res := File("f.yaml", src)
		nlines := len(newLines(src).starts)
		field := func(r Ref, fd Field, want string) {
			if !fd.OK {
				return
			}
			s := fd.Span
			if s.Start < 0 || s.End < s.Start || s.End > len(src) {
				t.Fatalf("%v: span %v outside the file (%d bytes)", r, s, len(src))
			}
			if s.Len() > 0 && string(src[s.Start:s.End]) != want {
				t.Fatalf("%v: span reads %q, want %q", r, src[s.Start:s.End], want)
			}
		}
		for _, r := range res.Refs {
			field(r, r.TagField, r.Tag)
			field(r, r.DigestField, r.Digest)
			if r.Line < 1 || r.Line > nlines {
				t.Fatalf("%v: line outside the file", r)
			}
		}
		for _, s := range res.Skipped {
			if s.Line < 1 || s.Line > nlines || utf8.RuneCountInString(s.Value) > maxShown+1 {
				t.Fatalf("bad skipped %+v", s)
			}
		}
		for _, p := range res.Problems {
			if p.Line < 1 || p.Line > nlines || utf8.RuneCountInString(p.Error()) > 400 {
				t.Fatalf("bad problem at line %d of %d: %.200s", p.Line, nlines, p.Error())
			}
		}
	})
}
