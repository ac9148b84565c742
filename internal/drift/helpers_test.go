package drift_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// world is a registry with real pushed images and a repository scanned
// from files, as the drift command sees them.
type world struct {
	reg  *registrytest.Server
	host string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	reg := registrytest.NewServer(t)
	return &world{reg: reg, host: reg.Host()}
}

// push pushes a new image (seed) as repo:tag and returns its digest.
func (w *world) push(t *testing.T, repo, tag, seed string) string {
	t.Helper()
	return w.reg.Push(t, repo, tag, registrytest.Image(t, seed, t0, nil))
}

func (w *world) image(repo string) string { return w.host + "/" + repo }

func (w *world) client() *registry.Client {
	return registry.NewClient(registry.WithKeychain(authn.NewMultiKeychain()), registry.WithRetry(0, time.Millisecond))
}

// refs writes files into a temporary repository, scans it and returns
// drift's references.
func refs(t *testing.T, files map[string]string) []drift.Reference {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := os.DirFS(dir)
	res, err := scan.FS(context.Background(), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := drift.References(fsys, res.Refs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func deployment(ns, name, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: ` + ns + `
spec:
  template:
    spec:
      containers:
        - name: app
          image: ` + image + "\n"
}

// replicaSet is a Deployment's ReplicaSet, as the controller names it.
func replicaSet(ns, deploy, hash string) *appsv1.ReplicaSet {
	yes := true
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: deploy + "-" + hash,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: deploy, UID: types.UID("d-" + deploy), Controller: &yes}},
	}}
}

// pod is a running pod of a ReplicaSet (rs "" for a bare pod) whose one
// container runs image with imageID.
func pod(ns, name, rs, hash, image, imageID string) *corev1.Pod {
	yes := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: image, ImageID: imageID}}},
	}
	if rs != "" {
		p.Labels["pod-template-hash"] = hash
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: types.UID("rs-" + rs), Controller: &yes}}
	}
	return p
}

func objects(objs ...runtime.Object) []runtime.Object { return objs }
