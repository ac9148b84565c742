package drift_test

import (
	"os"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The ClusterRole the deploy manifests ship reads pods and their owners
// only: get and list, never secrets, never a write; and it covers every
// read Kube makes.
func TestClusterRoleReadOnly(t *testing.T) {
	data, err := os.ReadFile("../../deploy/drift/clusterrole.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("rule %v grants %q", r.Resources, v)
			}
		}
		for _, res := range r.Resources {
			if res == "secrets" || res == "*" || slices.Contains(r.APIGroups, "*") {
				t.Errorf("rule grants %q in %v", res, r.APIGroups)
			}
			for _, g := range r.APIGroups {
				granted[g+"/"+res] = true
			}
		}
	}
	for _, need := range []string{"/pods", "apps/replicasets", "batch/jobs"} {
		if !granted[need] {
			t.Errorf("the ClusterRole does not grant %s, which drift reads", need)
		}
	}
}
