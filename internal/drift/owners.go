package drift

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// owners resolves a pod's controller to the workload a manifest declares:
// a ReplicaSet to its Deployment, a Job to its CronJob. ReplicaSets are
// listed once per namespace (not fetched per pod) and only their owner is
// kept; Jobs are fetched once each.
type owners struct {
	client  API
	rs      map[string]Workload // namespace/name -> owner
	listed  map[string]bool     // namespaces whose ReplicaSets were listed
	jobs    map[string]Workload
	notices []string
	noRS    bool // listing ReplicaSets is forbidden: use the pod-template-hash
	noJobs  bool
}

func (o *owners) of(ctx context.Context, p *corev1.Pod) (Workload, error) {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return Workload{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}, nil
	}
	own := Workload{Kind: ref.Kind, Namespace: p.Namespace, Name: ref.Name}
	switch ref.Kind {
	case "ReplicaSet":
		return o.replicaSet(ctx, p, own)
	case "Job":
		return o.job(ctx, own)
	case "Node":
		// A static pod: the kubelet runs it from a file on the node.
		return Workload{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}, nil
	}
	return own, nil
}

func (o *owners) replicaSet(ctx context.Context, p *corev1.Pod, rs Workload) (Workload, error) {
	key := rs.Namespace + "/" + rs.Name
	if !o.noRS && !o.listed[rs.Namespace] {
		if err := o.listReplicaSets(ctx, rs.Namespace); err != nil {
			if !apierrors.IsForbidden(err) {
				return Workload{}, fmt.Errorf("list replicasets in namespace %s: %w", rs.Namespace, err)
			}
			o.noRS = true
			o.notices = append(o.notices, "listing replicasets is forbidden: a pod's Deployment is read from its ReplicaSet's name (grant list on replicasets)")
		}
	}
	if w, ok := o.rs[key]; ok {
		return w, nil
	}
	// Not listed (forbidden, or created since the list): a Deployment
	// names its ReplicaSets <deployment>-<pod-template-hash>.
	if h := p.Labels["pod-template-hash"]; h != "" && strings.HasSuffix(rs.Name, "-"+h) {
		return Workload{Kind: "Deployment", Namespace: rs.Namespace, Name: strings.TrimSuffix(rs.Name, "-"+h)}, nil
	}
	return rs, nil
}

func (o *owners) listReplicaSets(ctx context.Context, ns string) error {
	o.listed[ns] = true
	opts := metav1.ListOptions{Limit: DefaultPageSize}
	for {
		page, err := o.client.ReplicaSets(ctx, ns, opts)
		if err != nil {
			return err
		}
		for i := range page.Items {
			rs := &page.Items[i]
			w := Workload{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}
			if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
				w = Workload{Kind: "Deployment", Namespace: rs.Namespace, Name: ref.Name}
			}
			o.rs[rs.Namespace+"/"+rs.Name] = w
		}
		if page.Continue == "" {
			return nil
		}
		opts.Continue = page.Continue
	}
}

func (o *owners) job(ctx context.Context, job Workload) (Workload, error) {
	key := job.Namespace + "/" + job.Name
	if w, ok := o.jobs[key]; ok || o.noJobs {
		if !ok {
			return job, nil
		}
		return w, nil
	}
	w := job
	j, err := o.client.Job(ctx, job.Namespace, job.Name)
	switch {
	case apierrors.IsForbidden(err):
		o.noJobs = true
		o.notices = append(o.notices, "getting jobs is forbidden: a CronJob's pods are reported under their Job (grant get on jobs)")
	case apierrors.IsNotFound(err):
	case err != nil:
		return Workload{}, fmt.Errorf("get job %s: %w", key, err)
	default:
		if ref := metav1.GetControllerOf(j); ref != nil && ref.Kind == "CronJob" {
			w = Workload{Kind: "CronJob", Namespace: job.Namespace, Name: ref.Name}
		}
	}
	o.jobs[key] = w
	return w, nil
}
