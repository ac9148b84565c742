package scan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCIImages: the images CI jobs run in, in GitHub, Gitea and Forgejo
// workflows and GitLab CI; action versions are not images.
func TestCIImages(t *testing.T) {
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{{
		name: "github workflow",
		file: ".github/workflows/ci.yml",
		src: "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    container: node:20.11.1\n" +
			"    services:\n      db:\n        image: postgres:15.4\n    steps:\n      - uses: actions/checkout@v4\n" +
			"      - uses: docker://alpine:3.19.1\n      - uses: docker://ghcr.io/acme/tool\n" +
			"  other:\n    container:\n      image: ghcr.io/acme/api:v1.8.2\n  matrix:\n    container: ${{ matrix.image }}\n" +
			"    steps:\n      - uses: robinraju/release-downloader@v1\n        with: {repository: acme/tool, tag: v1.0.0}\n",
		want: []string{
			`5 image docker.io/library/node tag="20.11.1" digest=insert"@"`,
			`8 image docker.io/library/postgres tag="15.4" digest=insert"@"`,
			`11 image docker.io/library/alpine tag="3.19.1" digest=insert"@"`,
			`15 image ghcr.io/acme/api tag="v1.8.2" digest=insert"@"`,
			"skipped 17 image variable ${{ matrix.image }}",
		},
	}, {
		name: "forgejo workflow without the word image",
		file: ".forgejo/workflows/build.yaml",
		src:  "jobs:\n  build:\n    container: golang:1.22.5\n",
		want: []string{`3 image docker.io/library/golang tag="1.22.5" digest=insert"@"`},
	}, {
		name: "not a workflow",
		file: "deploy/jobs.yml",
		src:  "jobs:\n  build:\n    container: golang:1.22.5\n",
		want: nil,
	}, {
		name: "gitlab",
		file: ".gitlab-ci.yml",
		src: "image: ruby:3.3.0\nservices:\n  - postgres:15.4\n  - name: redis:7.2.4\n    alias: cache\n" +
			"default:\n  image:\n    name: alpine:3.19.1\n    entrypoint: [\"\"]\n" +
			"test:\n  image: {name: \"$CI_REGISTRY_IMAGE:latest\"}\n  services: [{name: docker:24.0.7-dind}]\n",
		want: []string{
			`1 image docker.io/library/ruby tag="3.3.0" digest=insert"@"`,
			`3 image docker.io/library/postgres tag="15.4" digest=insert"@"`,
			`4 image docker.io/library/redis tag="7.2.4" digest=insert"@"`,
			`8 image docker.io/library/alpine tag="3.19.1" digest=insert"@"`,
			`12 image docker.io/library/docker tag="24.0.7-dind" digest=insert"@"`,
			"skipped 11 image variable $CI_REGISTRY_IMAGE:latest",
		},
	}, {
		name: "gitlab file split from the main one",
		file: "ci/gitlab-ci.build.yml",
		src:  "build:\n  services:\n    - name: docker:24.0.7-dind\n",
		want: []string{`3 image docker.io/library/docker tag="24.0.7-dind" digest=insert"@"`},
	}, {
		name: "cloud build",
		file: "cloudbuild.yaml",
		src:  "steps:\n  - name: 'gcr.io/k8s-skaffold/skaffold:v2.16.1'\n    args: [run]\n  - name: ubuntu\n  - id: no-name\n",
		want: []string{
			`2 image gcr.io/k8s-skaffold/skaffold tag="v2.16.1" digest=insert"@"`,
			`4 image docker.io/library/ubuntu tag=insert":" digest=insert"@"`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found(tc.file, tc.src)
			if diff := cmp.Diff(sorted(tc.want), sorted(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
}
