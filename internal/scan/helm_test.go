package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelmUntagged: a Helm image map with a repository and no tag is
// accounted for: with a digest, the digest is the reference (so the plan
// checks it is still served); without one, a no-tag notice says that the
// chart's default tag applies. None of them is dropped silently.
func TestHelmUntagged(t *testing.T) {
	const d = "sha256:94da777cc41b6009783d10e4adf6fac9e50f47a94a515325d7dde3af53a77302"
	src := "web:\n  image:\n    repository: nginx\n    tag: null\n" + // 3
		"api:\n  image:\n    repository: ghcr.io/acme/api\n    digest: " + d + "\n" + // 7, 8
		"db:\n  image:\n    registry: quay.io\n    repository: acme/db\n    tag: \"\"\n    digest: \"" + d + "\"\n" + // 12, 14
		"job:\n  image:\n    repository: busybox\n" + // 17
		"var:\n  image:\n    repository: ${REPO}\n" + // 20
		"crd:\n  image:\n    name: Not An Image\n" // a `name` that is no image: not ours
	res := File("values.yaml", []byte(src))
	var refs []string
	for _, r := range res.Refs {
		refs = append(refs, r.Location.String()+" "+r.Image+" tag="+r.Tag+" digest="+r.Digest[:13]+" field="+src[r.DigestField.Span.Start:r.DigestField.Span.End][:13])
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Location.String()+" "+s.Reason+" "+s.Image+" "+s.Value)
	}
	if diff := cmp.Diff([]string{
		"values.yaml:8:13 ghcr.io/acme/api tag= digest=sha256:94da77 field=sha256:94da77",
		"values.yaml:14:13 quay.io/acme/db tag= digest=sha256:94da77 field=sha256:94da77",
	}, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"values.yaml:3:17 no-tag docker.io/library/nginx nginx",
		"values.yaml:17:17 no-tag docker.io/library/busybox busybox",
		"values.yaml:20:17 variable  ${REPO}",
	}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems: %v", res.Problems)
	}
	for _, r := range res.Refs {
		if r.TagField.OK {
			t.Errorf("%s: a tag field to write into, where the values name none", r.Location)
		}
	}
}
