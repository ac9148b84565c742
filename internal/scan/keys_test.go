package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// found prints what File finds in one file, one line a find, with the text
// of each span, so that a wrong span shows as wrong text.
func found(file, src string) []string {
	res := File(file, []byte(src))
	var out []string
	show := func(f Field) string {
		if !f.OK {
			return "-"
		}
		if f.Span.Len() == 0 {
			return fmt.Sprintf("insert%q", f.Prefix)
		}
		return fmt.Sprintf("%q", src[f.Span.Start:f.Span.End])
	}
	for _, r := range append(res.Refs, res.Charts...) {
		out = append(out, fmt.Sprintf("%d %s %s tag=%s digest=%s", r.Line, r.Kind, r.Image, show(r.TagField), show(r.DigestField)))
	}
	for _, s := range res.Skipped {
		out = append(out, fmt.Sprintf("skipped %d %s %s %s", s.Line, s.Kind, s.Reason, s.Value))
	}
	for _, p := range res.Problems {
		out = append(out, "problem "+p.Error())
	}
	return out
}

// TestImagesWhereverYAMLWritesThem: the shapes of DESIGN.md's turn 4, each
// seen in a real repository, and their look-alikes that are not images.
func TestImagesWhereverYAMLWritesThem(t *testing.T) {
	const d = "sha256:94da777cc41b6009783d10e4adf6fac9e50f47a94a515325d7dde3af53a77302"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{{
		name: "keys ending in image",
		src: "sidecarImage: \"redis:7.2.4\"\nnode_image: kindest/node:v1.29.0\nSIDECAR_IMAGE: 'busybox@" + d + "'\n" +
			"baseImage: ubuntu\nuseImage: true\n.build-image: export BUILD_IMAGE=$CI_REGISTRY_IMAGE:${TAG}\n\"echo image\": nginx:1.0.0\ndescriptionImage: \"Some Text: here\"\nrunnerImage: ${RUNNER}\n",
		want: []string{
			`1 image docker.io/library/redis tag="7.2.4" digest=insert"@"`,
			`2 image docker.io/kindest/node tag="v1.29.0" digest=insert"@"`,
			`3 image docker.io/library/busybox tag=insert":" digest="` + d + `"`,
			"skipped 9 image variable ${RUNNER}",
		},
	}, {
		name: "maps with repository and tag or version under any key",
		src: "initImage:\n  repository: busybox\n  tag: 1.36.1\n" +
			"exporterImage:\n  repository: oliver006/redis_exporter\n  version: v1.58.0\n" +
			"sysctlImage:\n  registry: docker.io\n  repository: bitnami/os-shell\n  tag: \"12-debian-12-r16\"\n" +
			"redis: {repository: bitnami/redis, tag: 8.6.2}\n",
		want: []string{
			`3 helm docker.io/library/busybox tag="1.36.1" digest=-`,
			`6 helm docker.io/oliver006/redis_exporter tag="v1.58.0" digest=-`,
			`10 helm docker.io/bitnami/os-shell tag="12-debian-12-r16" digest=-`,
			`11 helm docker.io/bitnami/redis tag="8.6.2" digest=-`,
		},
	}, {
		name: "repository maps that are not images",
		src: "dependencies:\n  - name: redis\n    repository: https://charts.bitnami.com/bitnami\n    version: 18.1.0\n" +
			"git: {repository: https://github.com/acme/app, tag: v1.0.0}\n" +
			"chart: {name: nginx, repository: bitnami/nginx, version: 15.0.0}\n" +
			"source: {repository: \"${REPO}\", tag: v1}\n" +
			"release: {repository: Acme App, tag: v1}\n" +
			"notag: {repository: acme/app, tag: \"not a tag\"}\n",
		want: nil,
	}, {
		name: "image beside its tag",
		src: "server:\n  image: quay.io/argoproj/argocd\n  tag: v2.14.0\n  digest: \"\"\n" +
			"repo:\n  image: ghcr.io/acme/repo\n  tag:\n" +
			"both:\n  image: nginx:1.25.3\n  tag: 1.26.0\n",
		want: []string{
			`3 helm quay.io/argoproj/argocd tag="v2.14.0" digest=insert""`,
			`9 image docker.io/library/nginx tag="1.25.3" digest=insert"@"`,
			"skipped 6 helm no-tag ghcr.io/acme/repo",
		},
	}, {
		name: "oci strings",
		src: "spec:\n  distribution:\n    artifact: oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:v0.58.1\n" +
			"  url: oci://ghcr.io/stefanprodan/manifests/podinfo\n  other: \"oci://ghcr.io/acme/x@" + d + "\"\n",
		want: []string{
			`3 oci ghcr.io/controlplaneio-fluxcd/flux-operator-manifests tag="v0.58.1" digest=insert"@"`,
			`5 oci ghcr.io/acme/x tag=insert":" digest="` + d + `"`,
		},
	}, {
		name: "renovate annotations",
		src: "env:\n  # renovate: datasource=docker depName=ghcr.io/acme/worker\n  WORKER_VERSION: \"build-10\"\n" +
			"  # renovate: datasource=docker depName=nginx\n  proxy: nginx:1.25.3\n" +
			"  # renovate: datasource=helm depName=cilium registryUrl=https://helm.cilium.io/\n  cilium: 1.15.1\n" +
			"  # renovate: datasource=github-releases depName=acme/tool\n  tool: v1.2.3\n" +
			"  # renovate: datasource=docker depName=ghcr.io/acme/api\n  api: \"1.0 beta\"\n" +
			"  # renovate: datasource=helm depName=cilium\n  nourl: 1.15.1\n" +
			"  # renovate: datasource=docker depName=nginx\n\n  apart: 1.25.3\n" +
			"list:\n  # renovate: datasource=docker depName=nginx\n  - name: nginx\n    version: 1.25.3\n" +
			"# renovate: datasource=docker depName=kubelet packageName=ghcr.io/siderolabs/kubelet\nk8s: v1.30.1\n" +
			"# renovate: datasource=git-tags depName=https://git.example.com/acme/charts.git\ncharts: v0.4.0\n" +
			"# renovate: datasource=gitlab-tags depName=acme/infra registryUrl=https://gitlab.example.com/api/v4\ninfra: 1.4.0\n",
		want: []string{
			`3 marker ghcr.io/acme/worker tag="build-10" digest=-`,
			`5 marker docker.io/library/nginx tag="1.25.3" digest=insert"@"`,
			`22 marker ghcr.io/siderolabs/kubelet tag="v1.30.1" digest=-`,
			`7 chart-marker https://helm.cilium.io/cilium tag="1.15.1" digest=-`,
			`9 git github.com/acme/tool tag="v1.2.3" digest=-`,
			`24 git git.example.com/acme/charts tag="v0.4.0" digest=-`,
			`26 git gitlab.example.com/acme/infra tag="1.4.0" digest=-`,
			"skipped 11 marker invalid ghcr.io/acme/api:1.0 beta",
			"problem values.yaml:13:10: annotation on line 12 names no depName or no registryUrl (want `# renovate: datasource=helm depName=<chart> registryUrl=<url>`)",
		},
	}, {
		name: "chart markers",
		src: "generators:\n  - list:\n      elements:\n        - version: 15.4.1 # imagebot: chart https://charts.bitnami.com/bitnami/nginx\n" +
			"        - version: 0.9.0 # imagebot: chart oci://ghcr.io/stefanprodan/charts/podinfo\n" +
			"        - version: 1.x # imagebot: chart https://charts.bitnami.com/bitnami/nginx\n" +
			"        - version: 1.0.0 # imagebot: chart nginx\n",
		want: []string{
			`4 chart-marker https://charts.bitnami.com/bitnami/nginx tag="15.4.1" digest=-`,
			`5 chart-marker oci://ghcr.io/stefanprodan/charts/podinfo tag="0.9.0" digest=-`,
			"skipped 6 chart-marker range https://charts.bitnami.com/bitnami/nginx@1.x",
			"problem values.yaml:7:20: marker names no chart (want `# imagebot: chart <repository>/<chart>`)",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found("values.yaml", tc.src)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
}
