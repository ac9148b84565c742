package drift

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// scheme knows the three API groups drift reads and nothing else: a
// client-go clientset registers every group of Kubernetes, which would
// almost double imagebot's binary for three requests.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // static registration: cannot fail
		}
	}
	return s
}()

// restAPI is the API of an API server, one REST client per group.
type restAPI struct{ core, apps, batch rest.Interface }

// NewREST is the API of the server rc reaches.
func NewREST(rc *rest.Config) (API, error) {
	client := func(gv schema.GroupVersion, prefix string) (rest.Interface, error) {
		c := rest.CopyConfig(rc)
		c.GroupVersion, c.APIPath = &gv, prefix
		c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
		if c.UserAgent == "" {
			c.UserAgent = rest.DefaultKubernetesUserAgent()
		}
		return rest.RESTClientFor(c)
	}
	core, err := client(corev1.SchemeGroupVersion, "/api")
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	apps, err := client(appsv1.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	batch, err := client(batchv1.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &restAPI{core: core, apps: apps, batch: batch}, nil
}

func (r *restAPI) Pods(ctx context.Context, ns string, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	err := r.core.Get().Namespace(ns).Resource("pods").VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
	return out, err
}

func (r *restAPI) ReplicaSets(ctx context.Context, ns string, opts metav1.ListOptions) (*appsv1.ReplicaSetList, error) {
	out := &appsv1.ReplicaSetList{}
	err := r.apps.Get().Namespace(ns).Resource("replicasets").VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
	return out, err
}

func (r *restAPI) Job(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	out := &batchv1.Job{}
	err := r.batch.Get().Namespace(ns).Resource("jobs").Name(name).Do(ctx).Into(out)
	return out, err
}
