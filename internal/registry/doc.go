// Package registry asks OCI registries what they hold: the tags of a
// repository, the digest behind a tag, an image's facts for the gates
// (created time, platforms, annotations), whether a digest still exists,
// and, as the signature check's Fetcher, manifests, blobs and referrers.
// Authentication, manifests and blobs go through go-containerregistry; the
// tags listing and the referrers index are read here, so that their size
// and the tags' pagination can be bounded.
//
// Every request costs (Docker Hub allows ten anonymous pulls an hour), so a
// Client fetches each answer at most once: tags once per repository, a
// digest once per tag (by HEAD, which is not a pull), and each digest's
// manifest, config and signature at most once, whoever asks (the gates,
// the signature check, a PR body), and only when asked. Answers, errors
// included, are cached for the Client's life and concurrent callers share
// one request.
//
// What is per host is done per host, not per repository: one /v2/ probe
// per run, bearer tokens shared by the repositories the Client was told to
// Expect, a bounded number of requests in flight, an optional request
// budget, and the host's health: a registry that does not answer is down
// for the rest of the run after about two timeouts, and one that asks with
// Retry-After for more than the Client waits is left alone until then; its
// lookups fail at once and the other hosts carry on. Each host is spoken
// to with one scheme: https, unless a mirror URL says http or the host is
// a loopback address.
//
// The package never decides which tag is newer (that is internal/policy) and
// never writes to a registry.
package registry
