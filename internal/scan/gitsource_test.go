package scan

import (
	"fmt"
	"strings"
	"testing"
)

// TestGitSources finds each shape of a version deployed by git tag, with
// the tag's bytes and nothing else as the span, and leaves branches,
// HEAD, commits and ranges alone with a notice.
func TestGitSources(t *testing.T) {
	tests := []struct {
		name, file, src string
		// want: "match@tag" per reference, or "skip REASON match@rev" per notice.
		want  []string
		asset string // the first reference's asset URL at tag v9.9.9
	}{
		{name: "flux tag", file: "src.yaml", src: `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: podinfo}
spec:
  url: https://github.com/stefanprodan/podinfo.git
  ref:
    tag: "6.5.0"
`, want: []string{"github.com/stefanprodan/podinfo@6.5.0"}},
		{name: "flux ssh url", file: "src.yaml", src: `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec:
  url: ssh://git@github.com:22/acme/infra
  ref: {tag: v1.2.3}
`, want: []string{"github.com/acme/infra@v1.2.3"}},
		{name: "flux semver commit branch none", file: "src.yaml", src: `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: https://github.com/a/b, ref: {semver: ">=1.0.0"}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: https://github.com/a/b, ref: {commit: 3f9a2c1d0e, tag: v1.0.0}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: https://github.com/a/b, ref: {branch: release-1}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: https://github.com/a/b}
`, want: []string{"skip range github.com/a/b@>=1.0.0", "skip not-a-tag github.com/a/b@3f9a2c1d0e", "skip not-a-tag github.com/a/b@release-1", "skip not-a-tag github.com/a/b"}},
		{name: "argo git sources", file: "app.yaml", src: `apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
    - repoURL: https://github.com/argoproj/argo-rollouts.git
      path: manifests
      targetRevision: v1.7.2
    - repoURL: git@github.com:acme/deploy.git
      path: x
      targetRevision: HEAD
    - repoURL: https://github.com/acme/deploy
      path: y
    - repoURL: https://github.com/acme/deploy
      targetRevision: 1.2.*
    - repoURL: https://github.com/acme/deploy
      targetRevision: 0123456789abcdef0123456789abcdef01234567
    - repoURL: https://charts.example.com
      chart: web
      targetRevision: 1.2.3
`, want: []string{"github.com/argoproj/argo-rollouts@v1.7.2", "skip not-a-tag github.com/acme/deploy@HEAD", "skip not-a-tag github.com/acme/deploy",
			"skip range github.com/acme/deploy@1.2.*", "skip not-a-tag github.com/acme/deploy@0123456789abcdef0123456789abcdef01234567"}},
		{name: "applicationset", file: "set.yaml", src: `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
spec:
  template:
    spec:
      source: {repoURL: 'https://gitlab.com/acme/ops.git', targetRevision: 'v2.0.0', path: '{{path}}'}
  generators:
    - git: {repoURL: https://github.com/acme/config.git, revision: v0.4.0, directories: [{path: apps/*}]}
    - matrix:
        generators:
          - git: {repoURL: https://github.com/acme/config.git, revision: HEAD, files: [{path: x.json}]}
          - list: {elements: []}
`, want: []string{"gitlab.com/acme/ops@v2.0.0", "github.com/acme/config@v0.4.0", "skip not-a-tag github.com/acme/config@HEAD"}},
		{name: "kustomize remotes", file: "kustomization.yaml", src: `resources:
  - ../base
  - github.com/kubernetes-sigs/kustomize//examples/multibases?ref=v3.3.1
  - https://github.com/argoproj/argo-cd.git//manifests/cluster-install?ref=v2.14.0&timeout=90s
  - https://github.com/org/repo/deploy?version=v0.1.0
  - git@github.com:acme/private.git//base?ref=v1.0.0
  - github.com/acme/nobranch//base
  - github.com/acme/main//base?ref=main
  - https://example.com/plain.yaml
  - https://github.com/argoproj/argo-workflows/manifests/quick-start/base/minio
components:
  - ssh://git@gitlab.example.com/team/comp.git//c?timeout=10&ref=v0.3.0
`, want: []string{"github.com/kubernetes-sigs/kustomize@v3.3.1", "github.com/argoproj/argo-cd@v2.14.0", "github.com/org/repo@v0.1.0",
			"github.com/acme/private@v1.0.0", "gitlab.example.com/team/comp@v0.3.0", "skip not-a-tag github.com/acme/nobranch", "skip not-a-tag github.com/acme/main@main", "skip not-a-tag github.com/argoproj/argo-workflows"}},
		{name: "release assets", file: "kustomization.yaml", src: `resources:
  - https://github.com/argoproj/argo-rollouts/releases/download/v1.7.2/install.yaml
  - https://github.com/acme/ops/raw/v1.0.0/deploy/app.yaml
  - https://raw.githubusercontent.com/acme/ops/refs/tags/v1.1.0/deploy/app.yaml
  - https://raw.githubusercontent.com/acme/ops/refs/heads/main/deploy/app.yaml
  - https://gitea.example.com/acme/ops/raw/branch/main/app.yaml
  - https://github.com/acme/ops/releases/latest/download/app.yaml
`, want: []string{"github.com/argoproj/argo-rollouts@v1.7.2", "github.com/acme/ops@v1.0.0", "github.com/acme/ops@v1.1.0",
			"skip not-a-tag github.com/acme/ops@main", "skip not-a-tag gitea.example.com/acme/ops@main", "skip not-a-tag github.com/acme/ops@latest"},
			asset: "https://github.com/argoproj/argo-rollouts/releases/download/v9.9.9/install.yaml"},
		{name: "not git", file: "kustomization.yaml", src: `resources:
  - base
  - ./overlays/prod
  - https://example.com/crds.yaml
  - deployment.yaml
`},
		{name: "variables", file: "app.yaml", src: `apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  source: {repoURL: https://github.com/a/b, targetRevision: "${VERSION}", path: x}
`, want: []string{"skip variable https://github.com/a/b@${VERSION}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := File(tc.file, []byte(tc.src))
			if len(res.Problems) > 0 {
				t.Fatalf("problems: %v", res.Problems)
			}
			var got []string
			for _, r := range res.Charts {
				if r.Kind != KindGit {
					continue
				}
				if r.Git == nil || r.Image != r.Git.Match() {
					t.Fatalf("%s: git source %+v, image %q", r.Location, r.Git, r.Image)
				}
				if b := tc.src[r.TagField.Span.Start:r.TagField.Span.End]; b != r.Tag {
					t.Errorf("%s: span holds %q, want the tag %q alone", r.Location, b, r.Tag)
				}
				got = append(got, r.Image+"@"+r.Tag)
			}
			for _, s := range res.Skipped {
				got = append(got, fmt.Sprintf("skip %s %s", s.Reason, s.Value))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.asset != "" {
				r := res.Charts[0]
				if a := r.Git.AssetFor(r.Tag, "v9.9.9"); a != tc.asset {
					t.Errorf("asset at v9.9.9 = %q, want %q", a, tc.asset)
				}
			}
		})
	}
}

// TestGitSourceCredentials keeps the credentials written in a repository
// URL out of its name and every notice.
func TestGitSourceCredentials(t *testing.T) {
	src := `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: "https://bot:s3cret@git.example.com/acme/ops.git", ref: {tag: v1.0.0}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: "https://bot:s3cret@git.example.com/acme/ops.git", ref: {branch: main}}
`
	res := File("src.yaml", []byte(src))
	if len(res.Charts) != 1 || res.Charts[0].Git.URL != "https://git.example.com/acme/ops" || res.Charts[0].Git.Credentials.Password() != "s3cret" {
		t.Fatalf("charts %+v", res.Charts)
	}
	if s := fmt.Sprintf("%+v %+v", res.Charts[0], res.Skipped); strings.Contains(s, "s3cret") {
		t.Errorf("the password shows: %s", s)
	}
}
