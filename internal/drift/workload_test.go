package drift_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/drift"
)

// Each reference gets the workload of the document it stands in; a
// reference outside a workload's manifest (a kustomization) gets none.
func TestReferencesWorkload(t *testing.T) {
	rs := refs(t, map[string]string{
		"app.yaml": "# two objects\n" + deployment("web", "front", "nginx:1.27") + "---\n" +
			"apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  template:\n    spec:\n      containers:\n        - name: db\n          image: mariadb:11.4\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"kustomization.yaml": "images:\n  - name: redis\n    newTag: \"7.2\"\n",
	})
	got := map[string]drift.Workload{}
	for _, r := range rs {
		got[r.Image] = r.Workload
	}
	want := map[string]drift.Workload{
		"docker.io/library/nginx":   {Kind: "Deployment", Namespace: "web", Name: "front"},
		"docker.io/library/mariadb": {Kind: "StatefulSet", Name: "db"},
		"docker.io/library/redis":   {},
	}
	for image, w := range want {
		if got[image] != w {
			t.Errorf("%s: workload %+v, want %+v", image, got[image], w)
		}
	}
}
