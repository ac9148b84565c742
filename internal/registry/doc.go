// Package registry asks OCI registries what they hold: the tags of a
// repository, the digest behind a tag, and an image's config (created time,
// labels, platforms). It speaks the distribution API through
// go-containerregistry's remote package and never hand-rolls the protocol.
//
// Every request costs (Docker Hub allows ten anonymous pulls an hour), so a
// Client fetches each answer at most once: tags once per repository, a
// digest once per tag (by HEAD, which is not a pull), an image's config only
// when asked for it. Answers, errors included, are cached for the Client's
// life and concurrent callers share one request.
//
// The package never decides which tag is newer (that is internal/policy) and
// never writes to a registry.
package registry
