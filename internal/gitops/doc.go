// Package gitops turns a plan into pull requests: one branch, one commit on
// top of the default branch's tip, and one pull request per image stream.
//
// It keeps no state of its own. Everything a run needs to know is read back
// from the remote's branches and the pull requests' hidden markers, so a
// rerun with nothing new pushes nothing and writes nothing to the API, a PR
// closed without merge means "not that version", and a newer version moves
// the open PR instead of adding one. Commits are built in an in-memory clone:
// the user's checkout, its HEAD and its index are never touched. It never
// decides what to update; that is the plan's job.
package gitops
