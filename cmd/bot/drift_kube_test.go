package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// driftSA is the service account deploy/drift binds its ClusterRole to, as
// the API server names it.
const driftSA = "system:serviceaccount:default:imagebot-drift"

// TestDriftKube runs `imagebot drift` against a real kube-apiserver (make
// test-kube), as the service account of deploy/drift with exactly the
// rights its ClusterRole grants: two Deployments whose pods run mixed,
// stale and gone digests, a hand-made Deployment (undeclared), a declared
// one that does not run (not-running), and a namespace another identity
// may not list (a notice).
func TestDriftKube(t *testing.T) {
	srv := kubetest.Start(t, map[string]kubetest.User{
		"drift":   {Name: driftSA, Groups: []string{"system:serviceaccounts", "system:authenticated"}},
		"limited": {Name: "limited", Groups: []string{"system:authenticated"}},
	})
	t.Run("deploy_dry_run", func(t *testing.T) { testDeployDryRun(t, srv) })
	ctx := context.Background()
	k := srv.Admin
	applyDriftRBAC(t, k)

	reg := registrytest.NewServer(t)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	push := func(repo, tag, seed string) string {
		return reg.Push(t, repo, tag, registrytest.Image(t, seed, t0, nil))
	}
	webOld := push("acme/web", "1.0", "web-a")
	webNew := push("acme/web", "1.0", "web-b") // the tag moved
	apiOld := push("acme/api", "2.0", "api-a")
	push("acme/api", "2.0", "api-b")
	reg.Delete(t, "acme/api", apiOld)
	toolD := push("acme/tool", "1", "tool")
	push("acme/worker", "3.0", "worker") // declared, and runs nowhere
	image := func(repo string) string { return reg.Host() + "/" + repo }

	for _, ns := range []string{"prod", "other"} {
		if _, err := k.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// "limited" may read prod only, through a RoleBinding of the same role:
	// its cluster entry asks for prod and other.
	bind(t, k, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "limited"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "imagebot-drift"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "limited"}}})

	web := image("acme/web") + ":1.0"
	workload(t, k, "prod", "web", web, map[string]string{
		"web-1": "docker-pullable://" + image("acme/web") + "@" + webOld,
		"web-2": image("acme/web") + "@" + webNew,
		"web-3": "", // not pulled yet
	})
	workload(t, k, "prod", "api", image("acme/api")+":2.0", map[string]string{"api-1": image("acme/api") + "@" + apiOld})
	workload(t, k, "prod", "tool", image("acme/tool")+":1", map[string]string{"tool-1": image("acme/tool") + "@" + toolD})

	repo := t.TempDir()
	files := map[string]string{
		".imagebot.yaml": `registries: {"` + reg.Host() + `": {}}
clusters:
  - name: prod
    context: drift
    paths: ["envs/prod/**"]
  - name: limited
    context: limited
    paths: ["envs/prod/**"]
    namespaces: [prod, other]
`,
		"envs/prod/web.yaml":    manifest("prod", "web", web),
		"envs/prod/api.yaml":    manifest("prod", "api", image("acme/api")+":2.0"),
		"envs/prod/worker.yaml": manifest("prod", "worker", image("acme/worker")+":3.0"),
	}
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out, errOut, code := imagebot(t, environ{}, "drift", repo, "--kubeconfig", srv.Kubeconfig, "--output", "json")
	if code != exitPartial {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	var rep drift.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	kinds := map[drift.Kind]drift.Finding{}
	limited := 0
	for _, f := range rep.Drift {
		if f.Cluster == "limited" {
			limited++ // the same findings: it reads prod too
			continue
		}
		if _, dup := kinds[f.Kind]; dup {
			t.Errorf("two %s findings: %+v", f.Kind, rep.Drift)
		}
		kinds[f.Kind] = f
	}
	check := func(k drift.Kind, file, workload string, pods int) drift.Finding {
		t.Helper()
		f, ok := kinds[k]
		if !ok {
			t.Fatalf("no %s finding: %s", k, out)
		}
		if f.File != file || f.Workload.Name != workload || f.Workload.Kind != "Deployment" || f.Cluster != "prod" || len(f.Pods) != pods {
			t.Errorf("%s = %+v", k, f)
		}
		return f
	}
	if f := check(drift.Mixed, "envs/prod/web.yaml", "web", 2); len(f.Running) != 2 {
		t.Errorf("mixed runs %v", f.Running)
	}
	if f := check(drift.Stale, "envs/prod/web.yaml", "web", 1); f.Pods[0].Name != "prod/web-1" || f.Expected != webNew {
		t.Errorf("stale = %+v", f)
	}
	if f := check(drift.Gone, "envs/prod/api.yaml", "api", 1); f.Running[0] != apiOld {
		t.Errorf("gone = %+v", f)
	}
	check(drift.Undeclared, "", "tool", 1)
	check(drift.NotRunning, "envs/prod/worker.yaml", "worker", 0)
	notices := ""
	for _, n := range rep.Notices {
		notices += n.Cluster + ": " + n.Message + "\n"
	}
	for _, want := range []string{"prod: pod prod/web-3 container app has no image ID yet", "limited: namespace other: listing pods is forbidden"} {
		if !strings.Contains(notices, want) {
			t.Errorf("notices lack %q:\n%s", want, notices)
		}
	}
	if limited != 5 {
		t.Errorf("cluster limited: %d findings, want prod's five again", limited)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems: %+v", rep.Problems)
	}

	t.Run("run_pins", func(t *testing.T) { testRunPins(t, srv, files, image("acme/web"), webNew) })

	// Text, with the same findings.
	out, _, code = imagebot(t, environ{}, "drift", repo, "--kubeconfig", srv.Kubeconfig)
	if code != exitPartial || !strings.Contains(out, "drift: 2 mixed, 2 stale, 2 gone, 2 undeclared, 2 not-running") {
		t.Errorf("text (exit %d):\n%s", code, out)
	}
}

// applyDriftRBAC creates deploy/drift's ClusterRole and binding, so that
// the "drift" identity has exactly the rights the manifests ship.
func applyDriftRBAC(t *testing.T, k *kubernetes.Clientset) {
	t.Helper()
	var role rbacv1.ClusterRole
	readManifest(t, "clusterrole.yaml", &role)
	if _, err := k.RbacV1().ClusterRoles().Create(context.Background(), &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var binding rbacv1.ClusterRoleBinding
	readManifest(t, "clusterrolebinding.yaml", &binding)
	if _, err := k.RbacV1().ClusterRoleBindings().Create(context.Background(), &binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func readManifest(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "drift", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatal(err)
	}
}

func bind(t *testing.T, k *kubernetes.Clientset, rb *rbacv1.RoleBinding) {
	t.Helper()
	if _, err := k.RbacV1().RoleBindings(rb.Namespace).Create(context.Background(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// workload creates a Deployment, its ReplicaSet and one pod per entry of
// pods, whose container status carries that imageID, as a kubelet would
// report it, through the status subresource.
func workload(t *testing.T, k *kubernetes.Clientset, ns, name, image string, pods map[string]string) {
	t.Helper()
	ctx := context.Background()
	yes := true
	labels := map[string]string{"app": name, "pod-template-hash": "h1"}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}}}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	d, err := k.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := k.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-h1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID, Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for pod, imageID := range pods {
		p, err := k.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pod, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}},
			Spec: tmpl.Spec}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: image, ImageID: imageID, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}}
		if _, err := k.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func manifest(ns, name, image string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
		"\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: " + image + "\n"
}
