package forge

import "errors"

// The answers every host gives in its own words, as every driver returns
// them (wrapped with what it was doing), so that the lifecycle and job read
// them with errors.Is and never import a host's SDK to tell them apart.
var (
	// ErrNotFound is a 404: the host has no such thing, or hides it
	// from the token.
	ErrNotFound = errors.New("not found")
	// ErrNoRepository is a repository the host says does not exist, or
	// that the token may not see (GitLab answers 404 to both).
	ErrNoRepository error = notFound("no such repository")
	// ErrIssuesOff is a repository with issues turned off.
	ErrIssuesOff = errors.New("issues are turned off")
)

// RateLimitError is a host refusing for a rate limit, beyond the wait a
// run allows: the run then writes nothing more, and leaves what is left to
// the next run. It reads as the host's error.
type RateLimitError struct {
	Err error
}

func (e *RateLimitError) Error() string { return e.Err.Error() }
func (e *RateLimitError) Unwrap() error { return e.Err }

// notFound is a kind of ErrNotFound in its own words.
type notFound string

func (e notFound) Error() string      { return string(e) }
func (notFound) Is(target error) bool { return target == ErrNotFound }
