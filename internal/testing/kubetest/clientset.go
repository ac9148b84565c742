package kubetest

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/imagebot/imagebot/internal/drift"
)

// Clientset is drift's API over a client-go clientset, such as
// k8s.io/client-go/kubernetes/fake's. The product reads through
// drift.NewREST instead, which registers three API groups, not all.
func Clientset(cs kubernetes.Interface) drift.API { return clientset{cs} }

type clientset struct{ cs kubernetes.Interface }

func (c clientset) Pods(ctx context.Context, ns string, opts metav1.ListOptions) (*corev1.PodList, error) {
	return c.cs.CoreV1().Pods(ns).List(ctx, opts)
}

func (c clientset) ReplicaSets(ctx context.Context, ns string, opts metav1.ListOptions) (*appsv1.ReplicaSetList, error) {
	return c.cs.AppsV1().ReplicaSets(ns).List(ctx, opts)
}

func (c clientset) Job(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	return c.cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
}
