// Package kubetest runs a real kube-apiserver on etcd for tests, on
// loopback ports, with no kubelet, scheduler or controller-manager: tests
// create objects through the API and set pod status through the status
// subresource. The binaries come from IMAGEBOT_KUBE_BIN (make kube builds
// them); without it the tests that need them are skipped, so that make test
// stays fast.
//
// Authentication is a token file: an admin (system:masters) for setting
// up, and any users the test names, each with their own token, whom RBAC
// then judges as it would in a cluster.
package kubetest
