// Command image builds imagebot's container image into an OCI layout, with
// no Docker daemon and no network: `make image` runs it with `go run`.
//
//	go run ./internal/release/cmd/image -version 1.2.3 -created 1718000000 -out bin/image
//
// It prints the index digest, which is what the release workflow pushes.
package main
