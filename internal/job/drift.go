package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/drift"
)

// DriftOptions are Options plus where the clusters are.
type DriftOptions struct {
	Options
	// Kubeconfig is --kubeconfig; "" reads KUBECONFIG or ~/.kube/config,
	// and with InCluster and neither present, the pod's service account.
	Kubeconfig string
	// Context is --context: only the clusters of this kubeconfig context
	// (without `clusters:`, the one cluster checked).
	Context string
	// InCluster allows the in-cluster credentials (serve).
	InCluster bool
	// Timeout bounds each request to an API server (0: 30 s).
	Timeout time.Duration
}

// Drift compares the clusters of the config (without `clusters:`, the
// kubeconfig's context over the whole repository) with the references in
// the working tree of o.Repo and with the registry. It comes with a
// *PartialError when something drifted or a cluster could not be read.
func Drift(ctx context.Context, o DriftOptions) (*drift.Report, error) {
	e, err := newEngine(&o.Options)
	if err != nil {
		return nil, err
	}
	res, err := e.scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", e.repo, err)
	}
	refs, err := drift.References(e.fsys, res.Refs)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", e.repo, err)
	}
	clusters, err := driftClusters(e.cfg, o.Context)
	if err != nil {
		return nil, err
	}
	rep := &drift.Report{Drift: []drift.Finding{}, Notices: []drift.Notice{}, Problems: []drift.Notice{}}
	for _, c := range clusters {
		one, err := driftCluster(ctx, o, c, refs, e)
		if err != nil {
			rep.Problems = append(rep.Problems, drift.Notice{Cluster: c.Name, Message: err.Error()})
			continue
		}
		rep.Drift = append(rep.Drift, one.Drift...)
		rep.Notices = append(rep.Notices, one.Notices...)
	}
	e.flush()
	markChanged(o.Repo, rep)
	rep.Sort()
	if len(rep.Drift) > 0 || len(rep.Problems) > 0 {
		return rep, partial()
	}
	return rep, nil
}

// driftClusters are the clusters to check: the config's, those of
// context alone when it is given; without `clusters:`, one over every
// file, named after the context.
func driftClusters(cfg *config.Config, context string) ([]config.Cluster, error) {
	if len(cfg.Clusters) == 0 {
		name := context
		if name == "" {
			name = "default"
		}
		return []config.Cluster{{Name: name, Context: context, Paths: []string{"**"}}}, nil
	}
	if context == "" {
		return cfg.Clusters, nil
	}
	var out []config.Cluster
	var contexts []string
	for _, c := range cfg.Clusters {
		if c.Context == context {
			out = append(out, c)
		}
		contexts = append(contexts, c.Context)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--context %s: no entry of clusters: in %s has that context (they have: %s)", context, cfg.File, strings.Join(contexts, ", "))
	}
	return out, nil
}

func driftCluster(ctx context.Context, o DriftOptions, c config.Cluster, all []drift.Reference, e *engine) (drift.Report, error) {
	rc, err := restConfig(o, c.Context)
	if err != nil {
		return drift.Report{}, err
	}
	client, err := drift.NewREST(rc)
	if err != nil {
		return drift.Report{}, err
	}
	var namespaces []string
	if len(c.Namespaces) > 0 {
		namespaces = c.Namespaces
	}
	src := &drift.Kube{Client: client, Namespaces: namespaces, LabelSelector: c.Selector}
	pods, notices, err := src.Running(ctx)
	if err != nil {
		return drift.Report{}, fmt.Errorf("%s: %w", rc.Host, err)
	}
	var refs []drift.Reference
	for _, r := range all {
		if c.Runs(r.File) {
			refs = append(refs, r)
		}
	}
	e.log.Debug("drift", "cluster", c.Name, "pods", len(pods), "references", len(refs))
	rep := drift.Compare(ctx, drift.Input{Cluster: c.Name, Refs: refs, Pods: pods, Registry: e.reg, Namespaces: namespaces, Unread: src.Unread})
	for _, n := range notices {
		rep.Notices = append(rep.Notices, drift.Notice{Cluster: c.Name, Message: n})
	}
	return rep, nil
}

// restConfig is how to reach a cluster: the context of the kubeconfig
// (--kubeconfig, else KUBECONFIG, else ~/.kube/config), or in-cluster
// credentials when allowed and no kubeconfig exists.
func restConfig(o DriftOptions, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	if o.InCluster && o.Kubeconfig == "" && os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		if _, err := os.Stat(clientcmd.RecommendedHomeFile); err != nil {
			rc, err := rest.InClusterConfig()
			if err != nil {
				return nil, fmt.Errorf("no kubeconfig, and not in a cluster: %w", err)
			}
			return withTimeout(rc, o.Timeout), nil
		}
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	if context != "" {
		if _, ok := raw.Contexts[context]; !ok {
			return nil, fmt.Errorf("the kubeconfig has no context %q (it has: %s)", context, contextNames(raw.Contexts))
		}
	}
	rc, err := loader.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, errors.New("no kubeconfig: give --kubeconfig FILE or set KUBECONFIG")
		}
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return withTimeout(rc, o.Timeout), nil
}

func withTimeout(rc *rest.Config, d time.Duration) *rest.Config {
	if d <= 0 {
		d = 30 * time.Second
	}
	rc.Timeout = d
	rc.UserAgent = "imagebot-drift"
	return rc
}

func contextNames[V any](m map[string]V) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(slices.Compact(names), ", ")
}
