// Package drift compares what a cluster runs with what the repository says
// and what the registry serves, and names each difference: mixed (the pods
// of one workload run several digests of one reference), stale (the digest
// that runs is not what the reference's tag resolves to now), gone (the
// digest that runs is no longer served), undeclared (a workload runs an
// image that no mapped reference names) and not-running (a mapped
// reference whose workload does not run it).
//
// What runs is a container's status.imageID, the digest the node pulled,
// not its spec's image string, which says only what was asked for. Pods
// come through Source; Kube is the Source over an API server (NewREST, a
// client-go REST client that knows three API groups, not a clientset
// that would register them all): it lists running Pods (paginated, one
// list per namespace or one for the cluster) and resolves their owners
// (ReplicaSet to Deployment, Job to CronJob), and reads nothing else:
// never Secrets, never a write. The
// registry is asked through the same client as plan, one digest per tag
// and one existence check per running digest.
//
// The package reports; it never changes the cluster, and it opens no pull
// request (the job turns findings into pull requests through git, the only
// way imagebot changes what runs). SetTemplateAnnotation computes the
// bytes of a restart pull request's edit (one pod template annotation,
// nothing else re-serialized); it writes no file itself.
package drift
