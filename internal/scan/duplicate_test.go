package scan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDuplicateKeys: a repeated key elsewhere (GitLab CI's hidden jobs
// repeat, and PyYAML, GitLab and Helm accept it) never hides a file's
// references; a repeated image key is ambiguous, so neither value is
// edited and both are accounted for.
func TestDuplicateKeys(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		refs     []string // "line:image:tag"
		skipped  []string // "line:detail prefix"
		problems int
	}{{
		name: "a repeated job key in a GitLab CI file",
		src: ".docker: &docker\n  image: docker:24.0.5\n" +
			".docker: &docker\n  image: docker:24.0.6\n" +
			"build:\n  <<: *docker\n  image: golang:1.22.1\n",
		refs: []string{"2:docker.io/library/docker:24.0.5", "4:docker.io/library/docker:24.0.6", "7:docker.io/library/golang:1.22.1"},
	}, {
		name:    "a repeated image key",
		src:     "spec:\n  containers:\n    - name: a\n      image: nginx:1.25.3\n      image: nginx:1.25.4\n    - name: b\n      image: redis:7.2.4\n",
		refs:    []string{"7:docker.io/library/redis:7.2.4"},
		skipped: []string{`4:key "image" appears twice in one mapping (first on line 4)`, `5:key "image" appears twice in one mapping (first on line 4)`},
	}, {
		name:    "in flow style",
		src:     "x: {image: a:1, name: b, image: c:2}\n",
		skipped: []string{`1:key "image" appears twice`, `1:key "image" appears twice`},
	}, {
		name:    "a repeated tag in a Helm map",
		src:     "image:\n  repository: nginx\n  tag: 1.25.3\n  tag: 1.25.4\n",
		skipped: []string{`2:key "tag" appears twice in this image map (first on line 3)`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := File("f.yaml", []byte(tc.src))
			var refs, skipped []string
			for _, r := range res.Refs {
				refs = append(refs, strings.Join([]string{strconv.Itoa(r.Line), r.Image, r.Tag}, ":"))
			}
			for _, s := range res.Skipped {
				skipped = append(skipped, strconv.Itoa(s.Line)+":"+s.Detail)
			}
			if diff := cmp.Diff(tc.refs, refs); diff != "" {
				t.Errorf("refs (-want +got):\n%s", diff)
			}
			if len(skipped) != len(tc.skipped) {
				t.Fatalf("skipped %q, want %q", skipped, tc.skipped)
			}
			for i := range skipped {
				if !strings.HasPrefix(skipped[i], tc.skipped[i]) {
					t.Errorf("skipped[%d] = %q, want prefix %q", i, skipped[i], tc.skipped[i])
				}
			}
			if len(res.Problems) != tc.problems {
				t.Errorf("problems %v, want %d", res.Problems, tc.problems)
			}
		})
	}
}
