// Package policy decides which tags an image reference may move to.
//
// It is the decision stage of the pipeline (scan -> registry -> policy ->
// plan): given the tag a manifest uses and the registry's full tag listing,
// it answers "which tags may this image move to, best first, and if none,
// why?". Like Flux's image-reflector-controller policies it works in three
// steps:
//
//   - filter: drop tags that float (`latest`, `1.26` while `1.26.1`
//     exists), are ignored, not matched by the pattern, not read by the
//     versioning, outside the range or the allowed major/minor, or of
//     another stream than the current tag;
//   - order: compare what is left with one strategy per file (stream.go is
//     the default rule, reading tags as tag.go describes; semver.go,
//     numeric.go and alphabetical.go are opt-in);
//   - pick: every candidate newer than the current tag, best first, so that
//     a later check (age, platforms, signature) may pass over one for the
//     next; or the reason there is none (floating, newer only in another
//     variant, a commit id without a version; or, when a newer version
//     exists only in another shape, the highest such tag and why it was
//     passed over: passed.go). Up to date means nothing newer in any shape.
//
// The default rule reads a tag as a prefix, a version and suffix tokens
// (variants, build counters, commit ids, a prerelease): see tag.go and
// words.go. It prefers proposing nothing, with a reason, over proposing a
// tag of another variant, an alias, or a commit id read as a version.
//
// A Policy is built once per image from a Spec with New, which validates and
// compiles everything so that a bad configuration fails at start-up, never in
// the middle of a run. An Index reads one listing once for every tag of an
// image.
//
// The package never does I/O: it never talks to a registry, never reads files,
// never logs and never imports other imagebot packages. Resolving digests (for
// example to turn `latest` into the versioned tag with the same digest, using
// the order PinCandidates returns) is the caller's job.
package policy
