package scan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTemplateFragments: literal images in Helm templates and in YAML
// behind a template suffix are read where their lines hold no template
// syntax; a value with template syntax is a variable notice showing the
// template's own text; a document that does not parse once the syntax is
// left out is a quiet template problem at its line, and the file's other
// documents are still read.
func TestTemplateFragments(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{{
		name: "helm template",
		file: "chart/templates/job.yaml",
		src: "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ include \"x.fullname\" . }}\n  labels:\n    {{- include \"x.labels\" . | nindent 4 }}\n" +
			"spec:\n  template:\n    spec:\n      {{- with .Values.nodeSelector }}\n      nodeSelector: {{ toYaml . | nindent 8 }}\n      {{- end }}\n" +
			"      containers:\n        - name: build\n          image: docker.io/library/golang:1.19-alpine\n" +
			"        - name: app\n          image: \"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}\"\n" +
			"        - name: side\n          image: nginx:{{ .Values.tag }}\n",
		want: []string{
			`15 image docker.io/library/golang tag="1.19-alpine" digest=insert"@"`,
			`skipped 17 image variable {{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}`,
			`skipped 19 image variable nginx:{{ .Values.tag }}`,
		},
	}, {
		name: "a document that does not parse, another that does",
		file: "chart/templates/two.yaml",
		src: "spec:\n  values:\n{{ toYaml .Values.x | indent 2 }}\n  image: {{\n  .Values.image\n}}\n  key: \"unclosed\n---\nimage: busybox:1.36.0\n" +
			"{{/*\n a comment over\n several lines: image: nginx:1.0.0\n*/}}\n",
		want: []string{
			`9 image docker.io/library/busybox tag="1.36.0" digest=insert"@"`,
			"problem chart/templates/two.yaml:7: template ({{ ... }}), skipped: this document does not parse once its template syntax is left out; its images are not read: found unexpected end of stream (a quote opened on this line is never closed)",
		},
	}, {
		name: "if/else branches repeat a key: each is a value of its own",
		file: "chart/templates/redis.yaml",
		src: "spec:\n  containers:\n    - name: redis\n      {{- if .Values.public }}\n      image: redis:alpine@sha256:8096655e437712b07503796fb64d81359256cfcff0ab29d95a7da72863786efb\n" +
			"      {{- else }}\n      image: {{ .Values.repository }}/redis:alpine\n      {{- end }}\n" +
			"  source:\n    repoURL: {{ .Values.repo }}\n    targetRevision: HEAD\n",
		want: []string{
			`5 image docker.io/library/redis tag="alpine" digest="sha256:8096655e437712b07503796fb64d81359256cfcff0ab29d95a7da72863786efb"`,
			"skipped 7 image variable {{ .Values.repository }}/redis:alpine",
		},
	}, {
		name: "jinja",
		file: "roles/k3s/templates/registries.yaml.j2",
		src:  "{% if k3s_mirror %}\nmirrors:\n  image: {{ mirror_image }}\n{% endif %}\n{# a comment #}\nhelper:\n  image: rancher/mirrored-pause:3.6\n",
		want: []string{
			"skipped 3 image variable {{ mirror_image }}",
			`7 image docker.io/rancher/mirrored-pause tag="3.6" digest=insert"@"`,
		},
	}, {
		name: "tmpl without syntax",
		file: "talos/controlplane.yaml.tmpl",
		src:  "machine:\n  install:\n    image: ghcr.io/siderolabs/installer:v1.7.5\n  kubelet:\n    image: ghcr.io/siderolabs/kubelet:${KUBE_VERSION}\n",
		want: []string{
			`3 image ghcr.io/siderolabs/installer tag="v1.7.5" digest=insert"@"`,
			"skipped 5 image variable ghcr.io/siderolabs/kubelet:${KUBE_VERSION}",
		},
	}, {
		name: "values file holding template strings is plain YAML",
		file: "chart/values.yaml",
		src:  "name: \"{{ .Release.Name }}\"\nimage: nginx:1.25.3\n",
		want: []string{`2 image docker.io/library/nginx tag="1.25.3" digest=insert"@"`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found(tc.file, tc.src)
			// The skipped lines come after the refs in found; order by line
			// for reading.
			if diff := cmp.Diff(sorted(tc.want), sorted(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
