package drift

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

// Kind is one kind of drift.
type Kind string

const (
	Mixed       Kind = "mixed"       // one workload's pods run several digests of one reference
	Stale       Kind = "stale"       // the digest that runs is not what the reference resolves to now
	Gone        Kind = "gone"        // the digest that runs is no longer served by the registry
	Undeclared  Kind = "undeclared"  // a workload runs an image no mapped reference names
	NotRunning  Kind = "not-running" // a mapped reference that its workload does not run
	kindsNumber      = 5
)

// Kinds lists the kinds in the order reports print them.
var Kinds = []Kind{Mixed, Stale, Gone, Undeclared, NotRunning}

func (k Kind) order() int { return slices.Index(Kinds, k) }

// Workload is the object that owns pods: a Deployment, StatefulSet,
// DaemonSet, ReplicaSet without a Deployment, Job, CronJob, or a bare Pod.
// In a Reference, zero when the file does not say (a kustomization's
// images, Helm values) and Namespace "" when the manifest leaves it to the
// tool that applies it.
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (w Workload) String() string {
	if w.Name == "" {
		return "-"
	}
	if w.Namespace == "" {
		return w.Kind + "/" + w.Name
	}
	return w.Kind + " " + w.Namespace + "/" + w.Name
}

// continuous reports whether pods of this kind are meant to run all the
// time: a Job's and a CronJob's run to completion, so their absence is no
// drift.
func (w Workload) continuous() bool { return w.Kind != "Job" && w.Kind != "CronJob" }

// Reference is an image reference of the repository that a cluster runs.
type Reference struct {
	File string
	Line int
	// Repo is the repository, normalized as scan normalizes it; Image is
	// its printed spelling ("docker.io/library/nginx").
	Repo  name.Repository
	Image string
	// Tag and Digest as written; either may be "".
	Tag, Digest string
	// Workload is the object the reference stands in, where the file says.
	Workload Workload
}

// Container is one container of a running pod: its spec's image and its
// status's imageID.
type Container struct {
	Name    string
	Image   string
	ImageID string
}

// Pod is a running pod, with the workload that owns it.
type Pod struct {
	Namespace, Name string
	Workload        Workload
	Containers      []Container
}

// Source lists a cluster's running pods. Notices are what it could not
// read but worked around (a forbidden namespace); an error means the
// cluster could not be read at all.
type Source interface {
	Running(ctx context.Context) (pods []Pod, notices []string, err error)
}

// Registry is what drift asks a registry: what a tag resolves to now, and
// whether a digest is still served. *registry.Client is one.
type Registry interface {
	Digest(ctx context.Context, tag name.Tag) (string, error)
	Exists(ctx context.Context, ref name.Digest) (bool, error)
}

// PodDigest is one pod of a finding and the digest it runs ("" when its
// image ID names none).
type PodDigest struct {
	Name    string `json:"name"`
	Running string `json:"running,omitempty"`
}

// Finding is one drift: a reference (File, Line) or, for undeclared, none,
// in one workload of one cluster.
type Finding struct {
	Kind     Kind     `json:"kind"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Image    string   `json:"image"`
	Cluster  string   `json:"cluster"`
	Workload Workload `json:"workload"`
	// Pods are namespace/name with the digest each runs.
	Pods []PodDigest `json:"pods"`
	// Running are the distinct digests the pods run; for not-running, the
	// images the workload runs instead (none when it does not exist).
	Running []string `json:"running"`
	// Expected is the digest the reference pins or its tag resolves to
	// now; for not-running, the reference as written.
	Expected string `json:"expected,omitempty"`
	// Tag is the reference's tag, for the pull request that pins it.
	Tag string `json:"tag,omitempty"`
	// Changed is, for not-running, the last commit that changed the
	// reference's file: how long the cluster has not followed it.
	Changed *Commit `json:"changed,omitempty"`
}

// Commit is a commit of the repository.
type Commit struct {
	Hash string    `json:"commit"`
	Time time.Time `json:"time"`
}

// Notice is something drift could not check, and why.
type Notice struct {
	Cluster string `json:"cluster"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// Report is what one or more clusters drifted by.
type Report struct {
	Drift   []Finding `json:"drift"`
	Notices []Notice  `json:"notices"`
	// Problems are clusters that could not be read at all.
	Problems []Notice `json:"problems"`
}

// Sort orders the findings by kind, file, line, workload and image, so
// that a report reads the same on every run.
func (r *Report) Sort() {
	slices.SortFunc(r.Drift, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Kind.order(), b.Kind.order()), cmp.Compare(a.Cluster, b.Cluster),
			cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Workload.String(), b.Workload.String()), cmp.Compare(a.Image, b.Image))
	})
	byPlace := func(a, b Notice) int {
		return cmp.Or(cmp.Compare(a.Cluster, b.Cluster), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Message, b.Message))
	}
	slices.SortFunc(r.Notices, byPlace)
	slices.SortFunc(r.Problems, byPlace)
}

// Count is the number of findings of each kind, every kind present.
func (r *Report) Count() map[Kind]int {
	n := make(map[Kind]int, kindsNumber)
	for _, k := range Kinds {
		n[k] = 0
	}
	for _, f := range r.Drift {
		n[f.Kind]++
	}
	return n
}
