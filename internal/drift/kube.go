package drift

import (
	"context"
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultPageSize is how many pods one list request asks for: a page of
// 500 pods is a few megabytes of JSON, and only the few fields drift keeps
// outlive it.
const DefaultPageSize = 500

// API is what Kube reads of a cluster, with list and get only: pods, the
// ReplicaSets that own them, and the Jobs a CronJob made. NewREST is the
// API of an API server; tests wrap client-go's fake clientset
// (internal/testing/kubetest.Clientset).
type API interface {
	Pods(ctx context.Context, namespace string, opts metav1.ListOptions) (*corev1.PodList, error)
	ReplicaSets(ctx context.Context, namespace string, opts metav1.ListOptions) (*appsv1.ReplicaSetList, error)
	Job(ctx context.Context, namespace, name string) (*batchv1.Job, error)
}

// Kube is the Source over an API. It reads pods and the ReplicaSets and
// Jobs that own them, with list and get only.
type Kube struct {
	Client API
	// Namespaces to list, one list each; nil lists the whole cluster in
	// one list.
	Namespaces []string
	// LabelSelector narrows the pods listed ("" for all).
	LabelSelector string
	// PageSize is the list requests' limit (0: DefaultPageSize).
	PageSize int64
	// Unread are the namespaces Running could not list (forbidden), for
	// Input.Unread.
	Unread []string
}

// Running lists the running pods, each with the workload that owns it.
func (k *Kube) Running(ctx context.Context) ([]Pod, []string, error) {
	k.Unread = nil
	o := &owners{client: k.Client, rs: map[string]Workload{}, jobs: map[string]Workload{}, listed: map[string]bool{}}
	namespaces := k.Namespaces
	if namespaces == nil {
		namespaces = []string{metav1.NamespaceAll}
	}
	var pods []Pod
	var notices []string
	for _, ns := range namespaces {
		got, err := k.list(ctx, ns, o)
		switch {
		case err == nil:
			pods = append(pods, got...)
		case apierrors.IsForbidden(err) && ns != metav1.NamespaceAll:
			k.Unread = append(k.Unread, ns)
			notices = append(notices, fmt.Sprintf("namespace %s: listing pods is forbidden, so it is not checked (grant list on pods there)", ns))
		default:
			return nil, notices, explain(err, ns)
		}
	}
	return pods, append(notices, o.notices...), nil
}

// list lists the running pods of one namespace (or all), page by page,
// keeping of each page only what drift compares.
func (k *Kube) list(ctx context.Context, ns string, o *owners) ([]Pod, error) {
	limit := k.PageSize
	if limit <= 0 {
		limit = DefaultPageSize
	}
	opts := metav1.ListOptions{
		FieldSelector: "status.phase=Running",
		LabelSelector: k.LabelSelector,
		Limit:         limit,
	}
	var pods []Pod
	restarted := false
	for {
		page, err := k.Client.Pods(ctx, ns, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" && !restarted {
			// The continue token outlived etcd's compaction (a list
			// slower than about five minutes): list again from the
			// start, once, rather than mix two snapshots.
			restarted, opts.Continue, pods = true, "", nil
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			p := &page.Items[i]
			if p.Status.Phase != corev1.PodRunning {
				continue // a server that ignores the field selector
			}
			wl, err := o.of(ctx, p)
			if err != nil {
				return nil, err
			}
			pods = append(pods, Pod{Namespace: p.Namespace, Name: p.Name, Workload: wl, Containers: containers(p)})
		}
		if page.Continue == "" {
			return pods, nil
		}
		opts.Continue = page.Continue
	}
}

// containers pairs each container (init containers too: what they ran
// is part of the pod) with its status by name.
func containers(p *corev1.Pod) []Container {
	ids := map[string]string{}
	for _, s := range p.Status.InitContainerStatuses {
		ids["init/"+s.Name] = s.ImageID
	}
	for _, s := range p.Status.ContainerStatuses {
		ids[s.Name] = s.ImageID
	}
	out := make([]Container, 0, len(p.Spec.InitContainers)+len(p.Spec.Containers))
	for _, c := range p.Spec.InitContainers {
		out = append(out, Container{Name: c.Name, Image: c.Image, ImageID: ids["init/"+c.Name]})
	}
	for _, c := range p.Spec.Containers {
		out = append(out, Container{Name: c.Name, Image: c.Image, ImageID: ids[c.Name]})
	}
	return out
}

// explain turns a client-go error into a sentence that says what to do.
func explain(err error, ns string) error {
	where := "the cluster"
	if ns != metav1.NamespaceAll {
		where = "namespace " + ns
	}
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("list pods in %s: the API server refused the credentials (401 Unauthorized): renew them in the kubeconfig: %w", where, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("list pods in %s: forbidden: grant list on pods cluster-wide (deploy/ ships a ClusterRole), or name the namespaces to check in clusters[].namespaces: %w", where, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("list pods in %s: the API server did not answer in time: %w", where, err)
	}
	if s := err.Error(); strings.Contains(s, "connection refused") || strings.Contains(s, "no such host") || strings.Contains(s, "i/o timeout") {
		return fmt.Errorf("list pods in %s: the API server cannot be reached: %w", where, err)
	}
	return fmt.Errorf("list pods in %s: %w", where, err)
}
