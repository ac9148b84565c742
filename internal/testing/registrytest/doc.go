// Package registrytest runs a real OCI registry (go-containerregistry's
// pkg/registry) in an httptest server for tests, with what tests of a
// registry client need around it: a log of the requests received, injected
// failures, forced pagination of tag lists, basic and token auth, latency,
// and validators (ETag, Last-Modified) with 304 answers to conditional
// requests.
//
// It never fakes the protocol: images are pushed with remote.Write and
// served by the real registry handler.
package registrytest
