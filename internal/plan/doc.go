// Package plan decides, for every image reference a scan found, whether and
// where it moves: it asks the registry for tags (once per repository) and
// digests (only where a reference is pinned or a policy pins), lets the
// policy pick, and groups the moves into updates.
//
// It writes nothing. The plan it returns is the one value that apply, run
// and the output formats share.
package plan
