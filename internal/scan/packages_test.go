package scan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPackages: Crossplane packages and Tekton bundles are OCI references
// under keys of their own, read only in their own objects.
func TestPackages(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{{
		name: "crossplane",
		src: "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: aws}\nspec:\n  package: xpkg.upbound.io/crossplane-contrib/provider-aws:v0.39.0\n" +
			"---\napiVersion: pkg.crossplane.io/v1beta1\nkind: Function\nspec:\n  package: xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.7.0\n",
		want: []string{
			`5 package xpkg.upbound.io/crossplane-contrib/provider-aws tag="v0.39.0" digest=insert"@"`,
			`10 package xpkg.upbound.io/crossplane-contrib/function-patch-and-transform tag="v0.7.0" digest=insert"@"`,
		},
	}, {
		name: "tekton",
		src: "apiVersion: tekton.dev/v1\nkind: Pipeline\nspec:\n  tasks:\n    - name: clone\n      taskRef:\n        name: git-clone\n        bundle: gcr.io/tekton-releases/catalog/upstream/git-clone:0.9\n" +
			"    - name: build\n      taskRef:\n        resolver: bundles\n        params:\n          - name: bundle\n            value: ghcr.io/acme/tasks/build:1.2.0\n          - name: name\n            value: build\n",
		want: []string{
			`8 package gcr.io/tekton-releases/catalog/upstream/git-clone tag="0.9" digest=insert"@"`,
			`14 package ghcr.io/acme/tasks/build tag="1.2.0" digest=insert"@"`,
		},
	}, {
		name: "elsewhere a package or a bundle is no reference",
		src:  "kind: ConfigMap\ndata:\n  package: xpkg.upbound.io/crossplane-contrib/provider-aws:v0.39.0\nbundle: gcr.io/x/y:1.0\n",
		want: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := found("manifests.yaml", tc.src)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource:\n%s", diff, strings.TrimSpace(tc.src))
			}
		})
	}
}
