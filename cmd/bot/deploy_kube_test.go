package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/imagebot/imagebot/internal/testing/kubetest"
)

// testDeployDryRun sends every manifest under deploy/ to the API server
// with server-side dry-run: each must pass the server's own validation
// and admission, as kubectl apply --dry-run=server would, and nothing is
// stored.
func testDeployDryRun(t *testing.T, srv *kubetest.Server) {
	dc, err := discovery.NewDiscoveryClientForConfig(srv.AdminREST)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	dyn, err := dynamic.NewForConfig(srv.AdminREST)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(repoRoot, "deploy"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var obj unstructured.Unstructured
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Errorf("%s: %s: %v", p, gvk, err)
			return nil
		}
		res := dyn.Resource(m.Resource)
		var ri dynamic.ResourceInterface = res
		if m.Scope.Name() == "namespace" {
			ri = res.Namespace("default")
		}
		if _, err := ri.Create(context.Background(), &obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}); err != nil {
			t.Errorf("%s: server-side dry-run: %v", p, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Errorf("dry-ran %d manifests, want every file under deploy/", n)
	}
}
