// Package sigstoretest serves, for tests, a TUF repository that publishes a
// Sigstore trusted root, as tuf-repo-cdn.sigstore.dev publishes the
// public-good one: real signed TUF metadata over HTTP, so that the trust
// root goes through sigstore-go's TUF client and its cache directory as in
// production, without network.
//
// It sits below internal/signature and imports none of imagebot, so that
// signature's own tests, gate/inspect's and cmd/bot's share one repository
// builder without an import cycle. It never signs images (registrytest
// does).
package sigstoretest
