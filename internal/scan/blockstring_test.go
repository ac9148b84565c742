package scan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlockStrings: YAML documents inside any literal block string are
// read as Argo CD's helm.values are, with spans in the outer file's bytes;
// block strings that are scripts, prose, folded, or YAML that does not
// parse are left alone without a word.
func TestBlockStrings(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{{
		name: "configmap pod spec",
		src: "apiVersion: v1\nkind: ConfigMap\ndata:\n  podspec.yaml: |-\n    spec:\n      containers:\n        - name: runner\n          image: ghcr.io/acme/runner:v1.2.0   # inner comment\n" +
			"        - name: var\n          image: ${RUNNER}\n  other: plain\n",
		want: []string{
			`8 image ghcr.io/acme/runner tag="v1.2.0" digest=insert"@"`,
			"skipped 10 image variable ${RUNNER}",
		},
	}, {
		name: "helmrelease value holding manifests, two documents, nested block",
		src: "spec:\n  values:\n    extraManifest: |\n      apiVersion: v1\n      kind: Pod\n      spec:\n        containers:\n          - image: nginx:1.25.3\n      ---\n" +
			"      kind: ConfigMap\n      data:\n        inner.yaml: |\n          redis:\n            repository: bitnami/redis\n            tag: 7.2.4\n",
		want: []string{
			`8 image docker.io/library/nginx tag="1.25.3" digest=insert"@"`,
			`15 helm docker.io/bitnami/redis tag="7.2.4" digest=-`,
		},
	}, {
		name: "scripts, prose, folded and broken blocks",
		src: "command:\n  - sh\n  - -c\n  - |\n    echo image: nginx:1.0.0\n    docker run nginx:1.0.0\n" +
			"notes: |\n  Use the image nginx:1.25.3 for now.\n" +
			"folded: >\n  image: nginx:1.25.3\n" +
			"broken: |\n  image: nginx:1.25.3\n   bad: [\n" +
			"json: |\n  {\"a\": 1, \"sidecarImages\": [\"busybox\"]}\n",
		want: nil,
	}, {
		name: "a block under a YAML file's name that does not parse",
		src:  "data:\n  podspec.yaml: |-\n    image: nginx:1.25.3\n     bad: [\n  run.sh: |\n    image: nginx:1.25.3\n     bad: [\n",
		want: []string{"problem x.yaml:4: the block string under the key above is not valid YAML, images in it are left untouched: mapping values are not allowed in this context (a value holding \": \" needs quotes)"},
	}, {
		name: "three levels of nesting are read, a fourth is not",
		src: "a: |\n  image: nginx:1.25.1\n  b: |\n    image: nginx:1.25.2\n    c: |\n      image: nginx:1.25.3\n" +
			"      d: |\n        image: nginx:1.25.4\n",
		want: []string{
			`2 image docker.io/library/nginx tag="1.25.1" digest=insert"@"`,
			`4 image docker.io/library/nginx tag="1.25.2" digest=insert"@"`,
			`6 image docker.io/library/nginx tag="1.25.3" digest=insert"@"`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found("x.yaml", tc.src)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
}
