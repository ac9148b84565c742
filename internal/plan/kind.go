package plan

// Kinds of update besides the registry's newest (Update.Kind).
const (
	// KindPromotion moves an environment's references to the version that
	// soaked in the environment it is promoted from.
	KindPromotion = "promotion"
	// KindPrepull moves no tag: its only edit adds the new image to the
	// pre-pull DaemonSet, ahead of the rollout.
	KindPrepull = "prepull"
	// KindRollback moves every reference of an image back to an earlier
	// tag, at a person's request (imagebot rollback).
	KindRollback = "rollback"
)

// TypeRollback is the update type of a rollback, as automerge names it.
const TypeRollback = "rollback"

// FileEdit is an edit of one whole file that goes with an update: the
// pre-pull DaemonSet, which imagebot owns and so may re-serialize. Apply is
// given the file as it is on the commit the update is built on (nil when
// the file does not exist) and returns it edited; edits of one file in one
// pull request apply in the order of the updates.
type FileEdit struct {
	// Path is slash-separated, relative to the repository root.
	Path string
	// Apply returns the new content; it must be deterministic, so that a
	// rerun makes the same commit.
	Apply func(old []byte) ([]byte, error)
	// Note says in the PR body why the file is edited; "" for the
	// pre-pull DaemonSet's wording.
	Note string
}
