package drift_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
)

// pager answers pod lists in pages of limit, as the API server does, and
// records the options each list asked with (the fake clientset ignores
// limit, continue and field selectors).
func pager(t *testing.T, cs *fake.Clientset, pods []*corev1.Pod) *[]metav1.ListOptions {
	var asked []metav1.ListOptions
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		asked = append(asked, opts)
		start := 0
		if opts.Continue != "" {
			start, _ = strconv.Atoi(opts.Continue)
		}
		end := min(start+int(opts.Limit), len(pods))
		list := &corev1.PodList{}
		for _, p := range pods[start:end] {
			list.Items = append(list.Items, *p)
		}
		if end < len(pods) {
			list.Continue = strconv.Itoa(end)
		}
		return true, list, nil
	})
	return &asked
}

// Pods are listed in pages with the running-phase field selector and the
// label selector, every page followed, and a pod that is not running
// (from a server that ignored the selector) left out.
func TestKubePaginates(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 7 {
		p := pod("ns", fmt.Sprintf("p%d", i), "", "", "nginx:1", "docker.io/library/nginx@sha256:"+strings.Repeat("a", 64))
		p.Labels["tier"] = "web" // the fake filters by the label selector
		pods = append(pods, p)
	}
	pods[3].Status.Phase = corev1.PodPending
	cs := fake.NewClientset()
	asked := pager(t, cs, pods)
	got, _, err := (&drift.Kube{Client: kubetest.Clientset(cs), PageSize: 3, LabelSelector: "tier=web"}).Running(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 {
		t.Fatalf("%d pods, want 6", len(got))
	}
	if len(*asked) != 3 {
		t.Fatalf("%d list requests, want 3 pages", len(*asked))
	}
	for i, o := range *asked {
		if o.Limit != 3 || o.FieldSelector != "status.phase=Running" || o.LabelSelector != "tier=web" {
			t.Errorf("request %d: %+v", i, o)
		}
	}
	if (*asked)[1].Continue != "3" || (*asked)[2].Continue != "6" {
		t.Errorf("continue tokens not followed: %+v", *asked)
	}
	if got[0].Workload != (drift.Workload{Kind: "Pod", Namespace: "ns", Name: "p0"}) {
		t.Errorf("bare pod's workload = %+v", got[0].Workload)
	}
}

// A forbidden namespace is a notice and the others are read; the whole
// cluster forbidden, or credentials refused, is an error that says what
// to do.
func TestKubeForbidden(t *testing.T) {
	cs := fake.NewClientset(pod("web", "a", "", "", "nginx:1", ""), pod("secret", "b", "", "", "nginx:1", ""))
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == "secret" || a.GetNamespace() == "" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("no"))
		}
		return false, nil, nil
	})
	pods, notices, err := (&drift.Kube{Client: kubetest.Clientset(cs), Namespaces: []string{"web", "secret"}}).Running(context.Background())
	if err != nil || len(pods) != 1 || len(notices) != 1 || !strings.Contains(notices[0], "namespace secret") {
		t.Fatalf("pods %d, notices %q, err %v", len(pods), notices, err)
	}
	_, _, err = (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
	if err == nil || !strings.Contains(err.Error(), "clusters[].namespaces") {
		t.Fatalf("cluster-wide forbidden: %v", err)
	}

	cs = fake.NewClientset()
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewUnauthorized("token expired")
	})
	if _, _, err = (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background()); err == nil || !strings.Contains(err.Error(), "renew them") {
		t.Fatalf("unauthorized: %v", err)
	}
}

// Owners: a ReplicaSet resolves to its Deployment (by a list, once per
// namespace, not a get per pod), a Job to its CronJob, a StatefulSet is
// itself; without list on replicasets the pod-template-hash names the
// Deployment.
func TestKubeOwners(t *testing.T) {
	yes := true
	owned := func(p *corev1.Pod, kind, name string) *corev1.Pod {
		p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name, Controller: &yes}}
		return p
	}
	job := &batchJob{ns: "ns", name: "backup-123", cron: "backup"}
	cs := fake.NewClientset(replicaSet("ns", "web", "h1"), job.object(),
		pod("ns", "web-h1-x", "web-h1", "h1", "nginx:1", ""),
		pod("ns", "web-h1-y", "web-h1", "h1", "nginx:1", ""),
		owned(pod("ns", "db-0", "", "", "mariadb:11", ""), "StatefulSet", "db"),
		owned(pod("ns", "backup-123-z", "", "", "restic:1", ""), "Job", "backup-123"),
	)
	got, _, err := (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"web-h1-x": "Deployment/web", "web-h1-y": "Deployment/web", "db-0": "StatefulSet/db", "backup-123-z": "CronJob/backup"}
	for _, p := range got {
		if w := p.Workload.Kind + "/" + p.Workload.Name; w != want[p.Name] {
			t.Errorf("%s: workload %s, want %s", p.Name, w, want[p.Name])
		}
	}
	lists := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "replicasets" {
			lists++
		}
		if a.GetVerb() != "list" && a.GetVerb() != "get" {
			t.Errorf("a read-only source did %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
	if lists != 1 {
		t.Errorf("%d replicaset lists, want 1", lists)
	}

	cs = fake.NewClientset(pod("ns", "web-h1-x", "web-h1", "h1", "nginx:1", ""))
	cs.PrependReactor("list", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "", fmt.Errorf("no"))
	})
	got, notices, err := (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
	if err != nil || len(notices) != 1 || got[0].Workload.Kind != "Deployment" || got[0].Workload.Name != "web" {
		t.Fatalf("without replicasets: %+v %q %v", got, notices, err)
	}
}

// A continue token that expired (410 Gone) restarts the listing from the
// start, once, so that no pod is counted twice or from two snapshots.
func TestKubeExpiredContinue(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 4 {
		pods = append(pods, pod("ns", fmt.Sprintf("p%d", i), "", "", "nginx:1", ""))
	}
	cs := fake.NewClientset()
	asked := pager(t, cs, pods)
	expired := false
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.ListActionImpl).ListOptions.Continue != "" && !expired {
			expired = true
			return true, nil, apierrors.NewResourceExpired("continue token expired")
		}
		return false, nil, nil
	})
	got, _, err := (&drift.Kube{Client: kubetest.Clientset(cs), PageSize: 2}).Running(context.Background())
	if err != nil || len(got) != 4 {
		t.Fatalf("%d pods, %v", len(got), err)
	}
	if len(*asked) != 3 { // page 1, (expired), page 1 again, page 2
		t.Errorf("%d lists answered, want 3", len(*asked))
	}
}
