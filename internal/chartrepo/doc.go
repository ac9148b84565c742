// Package chartrepo lists the versions of a chart in an HTTP Helm
// repository, from the repository's index.yaml, as internal/registry lists
// the tags of an image: the newest first by Helm's semver order, each with
// its created time, deprecated flag and the chart's own metadata
// (appVersion, home, sources, digest, urls) for pull-request bodies.
//
// Cost: a Client fetches each repository's index at most once for its
// life, whoever asks and however many charts of it are asked for;
// concurrent callers share the fetch, and a failure is remembered too.
// With WithCache the index outlives the Client: it is used without a
// request for the cache's TTL, then asked for again with If-None-Match and
// If-Modified-Since, and a 304 costs no parsing. Stats counts the requests
// per host: full fetches, 304s and answers from the cache.
//
// Bounds: an index is read up to a cap (WithMaxIndexBytes, default 64
// MiB), parsed in time linear in its size without building the YAML tree
// of the whole document, and without decoding what no caller needs: the
// charts Expect does not name, the fields and top-level keys imagebot does
// not read (see parse.go). What is decoded at once, and what is kept, is
// bounded whatever the index (maxWholeBytes, maxEntryBytes, maxVersions):
// a YAML index peaks under 60 MiB of heap, a JSON one (whose values Go's
// decoder holds whole) under 120 MiB, one at a time (BenchmarkIndexMemory,
// BenchmarkIndexHostile). A repository costs at most
// WithTimeout (default 1 minute), retries and redirects included. Every
// failure is an *Error naming the repository URL, the HTTP status when one
// came, and what to check.
//
// Credentials go to the repository's own host only, as HTTP basic auth:
// those written in the repository URL (https://USER:PASSWORD@host/path),
// else the config's for its host (WithCredentials); never after a
// redirect to another host, and never over http after https (such a
// redirect is refused). They never appear in a Chart or an error.
//
// The package never decides which version is newer than another (that is
// internal/policy), never downloads a chart archive and never writes to a
// repository. OCI chart repositories (oci://) are the registry client's.
package chartrepo
