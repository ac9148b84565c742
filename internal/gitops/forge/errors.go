package forge

import (
	"errors"
	"fmt"
	"net/http"
)

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
	// ErrUnauthorized is a 401: the token is wrong, expired or revoked.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden is a 403 that is not a rate limit: the token lacks a
	// scope or a role.
	ErrForbidden = errors.New("forbidden")
	// ErrIssuesOff is a repository with issues turned off.
	ErrIssuesOff = errors.New("issues are turned off")
	// ErrNoIssueTracker is a host with no issues at all (Bitbucket Data
	// Center, Azure DevOps): ErrIssuesOff that no setting turns on, which
	// a run must not tell people to turn on.
	ErrNoIssueTracker = fmt.Errorf("no issue tracker: %w", ErrIssuesOff)
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

// HTTPError is a host's refusal of a request: its HTTP status, the host's
// own words (Message, "" when it gave none) and the error as the driver
// read it (Err, whose text it keeps). It is ErrUnauthorized, ErrForbidden
// or ErrNotFound by its status, and Of too when the driver says what the
// refusal was about (ErrNoRepository for the repository itself), so that
// callers tell them apart without the host's SDK.
type HTTPError struct {
	Status  int
	Message string
	Of      error
	Err     error
}

func (e *HTTPError) Error() string { return e.Err.Error() }
func (e *HTTPError) Unwrap() error { return e.Err }

// Is reads the status as the shared errors.
func (e *HTTPError) Is(target error) bool {
	switch {
	case target == nil:
		return false
	case e.Of != nil && errors.Is(e.Of, target):
		return true
	case target == ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case target == ErrForbidden:
		return e.Status == http.StatusForbidden
	case target == ErrNotFound:
		return e.Status == http.StatusNotFound
	}
	return false
}
