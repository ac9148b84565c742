// Package plan decides, for every image reference a scan found, whether and
// where it moves: it asks the registry for tags (once per repository) and
// digests (only where a reference is pinned or a policy pins), lets the
// policy pick, and groups the moves into updates.
//
// Where a policy asks for gates (minAge, platforms, signature,
// digestSettle), the candidates are inspected best first through an
// Inspector, at most five per reference, and the first that passes every
// gate is proposed with its evidence; the others are named in the notice.
// A new digest under the same tag is a new image and passes the gates too.
// References the registry can no longer serve (a tag gone from the listing,
// a pinned digest gone) are problems of kind dangling. The plan never
// talks to a registry or checks a signature itself.
//
// It writes nothing. The plan it returns is the one value that apply, run
// and the output formats share.
package plan
