package scan

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestKustomizeRenamed: a name that the kustomizations building a file
// rename with `images:` is not a reference of its own (kubebuilder's
// `controller:latest`, a `myapp:placeholder` base); the entry is. A base
// that one build uses as written keeps its reference, and so does a file
// no kustomization builds.
func TestKustomizeRenamed(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, src := range map[string]string{
		// kubebuilder: config/default builds ../manager, whose
		// kustomization renames controller.
		"config/default/kustomization.yaml": "namespace: op-system\nresources:\n- ../manager\n",
		"config/manager/kustomization.yaml": "resources:\n- manager.yaml\nimages:\n- name: controller\n  newName: ghcr.io/acme/op\n  newTag: v1.2.0\n",
		"config/manager/manager.yaml":       "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: controller:latest\n",
		// A base renamed by both of its overlays, one through a patch.
		"base/kustomization.yaml":          "resources:\n- deploy.yaml\n",
		"base/deploy.yaml":                 "kind: Pod\nspec:\n  containers:\n  - image: myapp:placeholder\n  - image: nginx:1.25.3\n",
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: sidecar.yaml\nimages:\n- name: myapp\n  newName: ghcr.io/acme/myapp\n  newTag: 1.0.0\n",
		"overlays/prod/sidecar.yaml":       "kind: Pod\nspec:\n  containers:\n  - image: myapp:placeholder\n",
		"overlays/dev/kustomization.yaml":  "resources:\n- ../../base\nimages:\n- name: myapp\n  newName: ghcr.io/acme/myapp\n  newTag: 0.9.0\n",
		// A base that one overlay renames and another uses as written.
		"shared/kustomization.yaml":  "resources:\n- redis.yaml\n",
		"shared/redis.yaml":          "kind: Pod\nspec:\n  containers:\n  - image: redis:7.0.0\n",
		"envs/a/kustomization.yaml":  "resources:\n- ../../shared\nimages:\n- name: redis\n  newTag: 7.2.0\n",
		"envs/b/kustomization.yaml":  "resources:\n- ../../shared\n",
		"loose/controller.yaml":      "kind: Pod\nspec:\n  containers:\n  - image: controller:latest\n",
		"cycle/a/kustomization.yaml": "resources:\n- ../b\n- pod.yaml\nimages:\n- name: loop\n  newTag: \"1\"\n",
		"cycle/a/pod.yaml":           "image: loop:0\n",
		"cycle/b/kustomization.yaml": "resources:\n- ../a\n",
		"remote/kustomization.yaml":  "resources:\n- https://github.com/acme/x//base?ref=v1\n- ../../../etc\n",
	} {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	res, err := FS(t.Context(), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var refs, skipped []string
	for _, r := range res.Refs {
		refs = append(refs, r.Location.String()+" "+r.String())
	}
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Location.String()+" "+s.Reason+" "+s.Value+": "+s.Detail)
	}
	if diff := cmp.Diff([]string{
		"base/deploy.yaml:5:12 nginx:1.25.3",
		"config/manager/kustomization.yaml:6:11 ghcr.io/acme/op:v1.2.0",
		"cycle/a/kustomization.yaml:6:11 loop:1",
		"cycle/a/pod.yaml:1:8 loop:0", // a cycle has no root: kustomize refuses to build it
		"envs/a/kustomization.yaml:5:11 redis:7.2.0",
		"loose/controller.yaml:4:12 controller:latest",
		"overlays/dev/kustomization.yaml:6:11 ghcr.io/acme/myapp:0.9.0",
		"overlays/prod/kustomization.yaml:8:11 ghcr.io/acme/myapp:1.0.0",
		"shared/redis.yaml:4:12 redis:7.0.0",
	}, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		`base/deploy.yaml:4:12 renamed myapp:placeholder: kustomize renames "myapp" (images: entry at overlays/dev/kustomization.yaml:4); that entry is the reference`,
		`config/manager/manager.yaml:7:16 renamed controller:latest: kustomize renames "controller" (images: entry at config/manager/kustomization.yaml:4); that entry is the reference`,
		`overlays/prod/sidecar.yaml:4:12 renamed myapp:placeholder: kustomize renames "myapp" (images: entry at overlays/prod/kustomization.yaml:6); that entry is the reference`,
	}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
