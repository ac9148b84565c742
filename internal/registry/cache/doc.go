// Package cache keeps registry answers on disk between runs, so that a
// second plan of an unchanged repository costs at most one request per
// registry repository, and often none.
//
// It holds two kinds of answer, with two rules:
//
//   - Content-addressed objects (manifests, image configs, signature
//     manifests and any other blob asked for by digest) are kept for ever,
//     since a digest names exactly one content. Every read hashes the
//     bytes again: a damaged file is a miss, never a wrong answer. The
//     directory is bounded by size (WithMaxBytes, default 256 MiB); Prune
//     removes the least recently used files beyond it.
//   - Tags listings are not content-addressed: a registry may add or move
//     a tag at any time. A listing is fresh for a TTL (WithTTL, default
//     1h) after the registry last confirmed it, and then refreshed with a
//     conditional request (If-None-Match, If-Modified-Since) where the
//     registry gave validators. The digests that tags resolved to while a
//     listing was fresh are kept with it and share its freshness: a tag
//     can be re-pushed without the listing changing, so a 304 for the
//     listing never vouches for a digest.
//
// Documents fetched by URL (a Helm repository's index.yaml) follow the
// listings' rule: fresh for the TTL, then revalidated with the validators
// kept beside them; what the client kept of the content is an object.
//
// It also keeps what a run learnt of a host that the next run should not
// pay to learn again (HostLimits: how many repositories a token request
// may name), for a week.
//
// Layout of the directory (format version 1):
//
//	DIR/CACHEDIR.TAG                      marks DIR as a cache for backup tools
//	DIR/v1/sha256/ab/abcdef...            an object: its media type on the first
//	                                      line, then the bytes whose sha256 names it
//	DIR/v1/tags/12/1234abcd....json       a listing: the sha256 of the rest on the
//	                                      first line, then JSON; the file is named
//	                                      by the sha256 of "host/repository"
//	DIR/v1/documents/12/1234abcd....json  a document's validators and object digest,
//	                                      as a listing is written, named by the
//	                                      sha256 of its URL
//	DIR/v1/builds/12/1234abcd....json     when each tag's image was built, as an order
//	                                      read it once (Builds), as a listing is
//	                                      written, named like the listing
//	DIR/v1/hosts/1234abcd....json         a host's learnt limits, as a listing is
//	                                      written, named by the sha256 of the host
//
// Several processes may share a directory (two runs of a CI job, the pods
// of a Job on one volume): every file is written to a temporary name and
// renamed into place, so a reader sees a whole old file or a whole new
// one, and the last writer of a listing wins. The cache never holds a
// secret: keys are registry hosts and repository paths, values are what
// any client allowed to pull would read; tokens and credentials are never
// written.
//
// The package stores and checks; it never speaks to a registry (that is
// the registry package, which plugs a Cache in with registry.WithCache).
package cache
