// Package helmrepotest is an HTTP Helm chart repository for tests: it
// serves an index.yaml and chart archives laid out byte for byte as
// `helm package` and `helm repo index` write them, built in the test from
// the charts it is given, with ETag and Last-Modified validators.
//
// Helm's own Go packages (pkg/chartutil, pkg/repo) are not used: they
// bring in client-go, and compiling a test with them took 1m38s of CPU
// (5m52s on this shared machine), against seconds for this package. The
// layout follows Helm v3.22.0's source instead, cited where it is copied.
//
// The product never imports this package (internal/chartrepo's depcheck
// test says so).
package helmrepotest
