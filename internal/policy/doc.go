// Package policy picks the newest allowed tag for one image reference.
//
// It is the decision stage of the pipeline (scan -> registry -> policy ->
// plan): given the tag a manifest uses and the registry's full tag listing,
// it answers "which tag may this image move to?". Like Flux's
// image-reflector-controller policies it works in three steps:
//
//   - filter: drop tags that are mutable (`latest`, `1.26` while `1.26.1`
//     exists), ignored, not matched by the pattern, not parseable by the
//     versioning, outside the range or the allowed major/minor, or of another
//     shape than the current tag;
//   - order: compare what is left with one strategy per file (shape.go is the
//     default "same shape, higher numbers" rule; semver.go, numeric.go and
//     alphabetical.go are opt-in);
//   - pick: the best candidate that is newer than the current tag.
//
// A Policy is built once per image from a Spec with New, which validates and
// compiles everything so that a bad configuration fails at start-up, never in
// the middle of a run.
//
// The package never does I/O: it never talks to a registry, never reads files,
// never logs and never imports other imagebot packages. Resolving digests (for
// example to turn `latest` into the versioned tag with the same digest, using
// the order PinCandidates returns) is the caller's job.
package policy
