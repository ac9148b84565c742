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
		// Issue 28's shapes: other keys, templates, block strings,
		// annotations, Dockerfiles, CI files (each read under every name).
		"initImage: {repository: a, tag: 1}\nx_image: b:2\nc: {image: d, tag: '3'}\nart: oci://e/f:4\n# renovate: datasource=docker depName=g\nv: 5\nw: 1.0.0 # imagebot: chart https://h/i\n",
		"{{- if .x }}\nimage: a:1\n{{ else }}\nimage: {{ .y }}\n{{ end }}\n{{/*\n*/}}\n---\n{% for %}\nb: |\n  image: c:2\n",
		"data:\n  p.yaml: |-\n    image: a:1\n    x: |\n      image: b:2\n",
		"# escape=`\nARG B=a:1 C\nFROM --platform=x ${B} AS s\nRUN <<-E cat <<F\n\tFROM x:1\n\tE\nF\nFROM s\nCOPY --from=c:2 `\n  / /\nFROM d:${C}\\\n",
		"jobs:\n  a:\n    container: b:1\n    steps: [{uses: 'docker://c:2'}]\nimage: {name: d:3}\nservices: [e:4, {name: f:5}]\nsteps: [{name: g:6}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, name := range []string{"f.yaml", "chart/templates/f.yaml", "Dockerfile", ".github/workflows/f.yml", ".gitlab-ci.yml", "cloudbuild.yaml"} {
			checkFile(t, name, src)
		}
		if bytes.Contains(src, []byte("dependencies")) {
			checkFile(t, "Chart.yaml", src) // the name decides whether dependencies are read
		}
	})
}

// checkFile is FuzzFile's check of one file name.
func checkFile(t *testing.T, name string, src []byte) {
	res := File(name, src)
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
}
