package scan

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongValues: a 10,000-character tag is skipped with a reason that says
// so, on an `image:` line and on a marker line, and no message or value
// carries more than about 100 characters of it (a marker line once made a
// 20,106-character message).
func TestLongValues(t *testing.T) {
	long := strings.Repeat("a", 10000)
	for _, tc := range []struct {
		name, src string
		skipped   string // the detail of the one Skipped, or ""
		problem   string // the text of the one Problem, or ""
	}{
		{"image line", "image: nginx:" + long + "\n", "tag is 10000 characters long, more than 128", ""},
		{"marker line", "tag: " + long + " # imagebot: tag ghcr.io/acme/app\n", "tag is 10000 characters long, more than 128", ""},
		{"marked image", "v: nginx:" + long + " # imagebot: image\n", "tag is 10000 characters long, more than 128", ""},
		{"helm tag", "image:\n  repository: nginx\n  tag: " + long + "\n", "tag is 10000 characters long, more than 128", ""},
		{"kustomize tag", "images:\n  - name: nginx\n    newTag: " + long + "\n", "tag is 10000 characters long, more than 128", ""},
		{"long name", "image: " + long + ":1\n", "image name is 10000 characters long, more than 255", ""},
		{"long bad tag", "image: nginx:" + strings.Repeat("é", 100) + "\n", "may hold only letters", ""},
		{"marker naming a long image", "tag: 1.0 # imagebot: tag " + long + "\n", "", "image name is 10000 characters long"},
		{"marker naming no image", "tag: 1.0 # imagebot: tag" + strings.Repeat(" ", 10) + "\n", "", "names no image"},
		{"escaped value", "image: \"nginx:1.2\\x2e" + strings.Repeat("3", 120) + "\"\n", "", "cannot locate"},
		{"long YAML error", "image: x\nb: *" + long + "\n", "", "unknown anchor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := File("f.yaml", []byte(tc.src))
			if len(res.Refs) > 0 {
				t.Fatalf("refs %v, want none", res.Refs)
			}
			var msgs []string
			for _, s := range res.Skipped {
				msgs = append(msgs, s.Value, s.Detail)
			}
			for _, p := range res.Problems {
				msgs = append(msgs, p.Error())
			}
			for _, m := range msgs {
				if n := utf8.RuneCountInString(m); n > 250 {
					t.Errorf("message of %d characters: %.80s...", n, m)
				}
			}
			if tc.skipped != "" && (len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Detail, tc.skipped) || res.Skipped[0].Reason != SkipInvalid) {
				t.Errorf("skipped %v, want one invalid: %q", res.Skipped, tc.skipped)
			}
			if tc.problem != "" && (len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), tc.problem)) {
				t.Errorf("problems %v, want one saying %q", res.Problems, tc.problem)
			}
			if len(res.Skipped) > 0 && !strings.HasSuffix(res.Skipped[0].Value, "…") {
				t.Errorf("value %q is not cut with an ellipsis", res.Skipped[0].Value)
			}
		})
	}
}
