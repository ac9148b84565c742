package scan

import (
	"bytes"
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
		// Chart versions and images inside GitOps objects.
		"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nspec:\n  chart:\n    spec: {chart: a, version: 1.2.3, sourceRef: {kind: HelmRepository, name: r}}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: r}\nspec: {url: oci://ghcr.io/x}\n",
		"apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nspec:\n  url: oci://ghcr.io/a/b\n  ref: {tag: v1, digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000'}\n",
		"apiVersion: argoproj.io/v1alpha1\r\nkind: Application\r\nspec:\r\n  source:\r\n    repoURL: ghcr.io/c\r\n    chart: n\r\n    targetRevision: 1.*\r\n    kustomize: {images: [a=b:1, 'c:2@sha256:0000000000000000000000000000000000000000000000000000000000000000']}\r\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  sources:\n  - helm:\n      parameters: [{name: image.tag, value: '1'}, {name: image.repository, value: r}]\n      values: |-\n        image:\n          repository: é\n          tag: 1.2\n\n         x: 1\n",
		"apiVersion: v2\ndependencies:\n- {name: a, version: 1.0.0, repository: 'https://x/'}\n- {name: b, version: ~1, repository: '@s'}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res := File("f.yaml", src)
		if bytes.Contains(src, []byte("dependencies")) {
			res = File("Chart.yaml", src) // the name decides whether dependencies are read
		}
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
		for _, r := range append(res.Refs, res.Charts...) {
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
