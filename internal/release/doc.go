// Package release builds imagebot's container image without Docker: it
// cross-compiles ./cmd/bot for each platform and assembles an OCI image index
// with go-containerregistry, on an empty (scratch) base plus one layer holding
// CA certificates and a non-root user.
//
// The build is reproducible: every timestamp in the layers and the config is
// the commit time the caller passes (SOURCE_DATE_EPOCH), so the same commit
// gives the same digests on any machine, and a pushed image can be checked
// against a local `make image`.
//
// It never talks to a registry and never runs Docker or a shell: the image
// goes to an OCI layout on disk, and pushing it is the release workflow's job.
// The archives and checksums of a release are GoReleaser's (.goreleaser.yaml).
package release
