package scan

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrorLine: broken files of the kinds people write name the line
// a person would fix. yaml.v3 alone names the line where the enclosing
// block starts, counted from 0 for some errors.
func TestSyntaxErrorLine(t *testing.T) {
	comments := strings.Repeat("# a long comment block\n", 2000)
	for _, tc := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"sequence entry indented too little", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      image: nginx:1.25.3\n     - name: b\n", 7, "did not find expected '-' indicator"},
		{"mapping key indented too little", "spec:\n  template:\n    metadata: {}\n   spec:\n    image: nginx:1\n", 4, ""},
		{"key outdented under a block", "a:\n  image: b:1\n  c: 2\n d: 3\n  e: 4\n", 4, "did not find expected key"},
		{"list item inside a mapping", "metadata:\n  name: x\n  - image: nginx:1\n", 3, "did not find expected key"},
		{"unclosed double quote", "a: 1\nimage: \"nginx:1.25.3\nb: 2\nc: 3\n", 2, "found unexpected end of stream"},
		{"unclosed single quote", "a: 1\nimage: 'nginx:1.25.3\nb: 2\n", 2, "found unexpected end of stream"},
		{"unclosed flow sequence", "a: 1\nargs: [--port, 80\nimage: nginx:1\nd: 3\n", 2, "did not find expected ',' or ']'"},
		{"unclosed flow mapping", "a: 1\nc: {name: web, image: nginx:1\nd: 3\n", 2, "did not find expected ',' or '}'"},
		{"unclosed flow at the end", "image: nginx:1\nargs: [\n", 2, ""},
		{"missing comma in JSON", "{\n  \"image\": \"nginx:1\"\n  \"name\": \"web\"\n}\n", 2, "did not find expected ',' or '}'"},
		{"missing comma in one-line JSON", `{"image": "nginx:1" "name": "web"}` + "\n", 1, ""},
		{"tab as indentation", "spec:\n  image: nginx:1\n\tname: web\n", 3, ""},
		{"tab starts a line", "spec:\n\timage: nginx:1\n", 2, "found character that cannot start any token"},
		{"colon in a plain value", "image: nginx: 1.25\nname: web\n", 1, "mapping values are not allowed in this context"},
		{"unknown alias", "a: 1\nimage: *nope\n", 2, "unknown anchor"},
		{"third document", "image: a:1\n---\nimage: b:1\n---\nspec:\n  - name: c\n image: c:1\n", 7, ""},
		{"after many comment lines", "spec:\n  containers:\n    - image: a:1\n" + comments + "   - image: b:1\n", 2004, ""},
		{"BOM and CRLF", "\ufeffspec:\r\n  containers:\r\n    - image: a:1\r\n   - image: b:1\r\n", 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := File("f.yaml", []byte(tc.src))
			if len(res.Problems) != 1 || len(res.Refs) != 0 {
				t.Fatalf("refs %v, problems %v; want one problem and no refs", res.Refs, res.Problems)
			}
			p := res.Problems[0]
			if !errors.Is(p, ErrSyntax) {
				t.Errorf("%v is not ErrSyntax", p)
			}
			if p.Line != tc.line {
				t.Errorf("line %d, want %d: %v", p.Line, tc.line, p)
			}
			if !strings.Contains(p.Error(), tc.msg) {
				t.Errorf("%q does not say %q", p.Error(), tc.msg)
			}
		})
	}
}

// TestSyntaxErrorFewParses: the search for the line costs a few parses of
// the file, wherever the mistake is.
func TestSyntaxErrorFewParses(t *testing.T) {
	body := bundle(256 << 10)
	for _, tc := range []struct {
		name string
		src  string
	}{
		{"at the start", "a:\n b: 1\n  c: 2\n" + string(body)},
		{"in the middle", string(body[:len(body)/2]) + "\n---\na:\n b: 1\n  c: 2\n---\n" + string(body[len(body)/2:])},
		{"at the end", string(body) + "---\na:\n b: 1\n  c: 2\n"},
		{"unclosed quote at the start", "a: \"x\n" + string(body)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.src)
			_, read, err := parse(src)
			if err == nil {
				t.Fatal("parsed")
			}
			_, parsed := locate(src, err, read)
			if parsed > 3*len(src) {
				t.Errorf("parsed %d bytes for a file of %d", parsed, len(src))
			}
		})
	}
}
