// Package prepull writes and reads the pre-pull DaemonSet: the one file
// imagebot owns (prepull.manifest in .imagebot.yaml). Every node it selects
// pulls each listed image ahead of the rollout that uses it (seed 004), so
// that the rollout neither waits for nor fails on the registry.
//
// An image may have no shell, not even a binary to run (distroless,
// scratch), so a pull cannot run anything the image brings. Instead, as
// Eclipse Che's kubernetes-image-puller does, a first init container (the
// imagebot image, static and multi-arch) copies its own binary into an
// emptyDir; then each image to pull is an init container that runs that
// copy (`/prepull/imagebot version`, which exits at once). The kubelet pulls
// the image to start the container, which is all that is wanted. The main
// container is the pause image, the pod sandbox image every node has, doing
// nothing. This works on every Kubernetes version and runtime; Kubernetes
// image volumes (KEP-4639) would pull without running anything, but need
// Kubernetes 1.33+ with the ImageVolume feature and a runtime that supports
// them (containerd 2.1+, CRI-O 1.31+).
//
// Because imagebot owns the file, it serializes it with kyaml rather than
// splicing bytes; what it does not manage (tolerations, imagePullSecrets,
// annotations a person added) is kept, and rendering its own output again
// gives the same bytes. The package does no I/O.
package prepull
