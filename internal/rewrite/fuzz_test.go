package rewrite

import (
	"bytes"
	"sort"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// FuzzRewrite checks the rewriter's one promise on any input: every byte
// outside the edited spans is the same afterwards, and a file that cannot be
// handled is returned unchanged with an error.
func FuzzRewrite(f *testing.F) {
	seeds := []string{
		"image: nginx:1.25.3\n",
		"\xef\xbb\xbfa:\r\n  image: 'x:1' # c\r\n",
		"- {image: \"ghcr.io/a/b:v1@sha256:0000000000000000000000000000000000000000000000000000000000000000\"}\n",
		"images:\n  - name: a\n    newTag: 1.2\n",
		"image:\n  repository: r\n  tag: 1.25\n  digest:\n",
		"x: &a redis:7\ny:\n  image: *a\n",
		"v: q:1 # imagebot: tag ghcr.io/x/y\n---\nimage: n:1\n...\n",
		"image: |\n  nginx:1\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "1.30", true)
	}
	f.Fuzz(func(t *testing.T, src []byte, tag string, withDigest bool) {
		refs := scan.File("f.yaml", src).Refs
		var changes []plan.Change
		for _, r := range refs {
			c := plan.Change{Ref: r, Tag: tag}
			if withDigest {
				c.Digest = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
			}
			changes = append(changes, c)
		}
		orig := bytes.Clone(src)
		out, skipped, err := Bytes(src, changes)
		if !bytes.Equal(src, orig) {
			t.Fatal("input was modified")
		}
		if err != nil {
			return
		}
		var edits []Edit
		for _, c := range changes {
			if isSkipped(c, skipped) {
				continue
			}
			e, err := Edits(c)
			if err != nil {
				t.Fatalf("Edits failed for a change Bytes applied: %v", err)
			}
			edits = append(edits, e...)
		}
		outsideEqual(t, src, out, edits)
	})
}

func isSkipped(c plan.Change, skipped []plan.Problem) bool {
	for _, p := range skipped {
		if p.Line == c.Ref.Line && p.File == c.Ref.File {
			return true
		}
	}
	return false
}

// outsideEqual walks src and out in step: between edits the bytes must be
// identical; at an edit, out holds exactly the edit's text.
func outsideEqual(t *testing.T, src, out []byte, edits []Edit) {
	t.Helper()
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Span.Start < edits[j].Span.Start })
	var s, o int
	for _, e := range edits {
		gap := src[s:e.Span.Start]
		if !bytes.Equal(out[o:o+len(gap)], gap) {
			t.Fatalf("bytes before offset %d changed:\nsrc %q\nout %q", e.Span.Start, src, out)
		}
		o += len(gap)
		if string(out[o:o+len(e.Text)]) != e.Text {
			t.Fatalf("edit text missing at %d", o)
		}
		o += len(e.Text)
		s = e.Span.End
	}
	if !bytes.Equal(out[o:], src[s:]) {
		t.Fatalf("tail changed:\nsrc %q\nout %q", src, out)
	}
}

func scanFile(src []byte) ([]scan.Ref, []scan.Problem) {
	res := scan.File("f.yaml", src)
	return res.Refs, res.Problems
}

func changesFor(refs []scan.Ref, tag string) []plan.Change {
	var cs []plan.Change
	for _, r := range refs {
		cs = append(cs, plan.Change{Ref: r, Tag: tag})
	}
	return cs
}
