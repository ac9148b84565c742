package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/secret"
)

// Exit statuses, as DESIGN.md fixes them. exitCode is the only place that
// turns an error into one of them.
const (
	exitOK      = 0 // everything that could be checked was handled
	exitUsage   = 1 // bad config, bad flags, or a repository that cannot be read
	exitPartial = 2 // some lookups or pull requests failed; the rest were done
)

// usageError is a command line that cannot be run as written: an unknown
// flag, a bad value, an unexpected argument. It is printed with a pointer
// to the command's help.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// errPartial is a partial failure that the output already described; a
// *job.PartialError with an error says what failed (exit 2 both).
var errPartial = &job.PartialError{}

// errSilent fails a command (exit 1) whose reasons were already printed,
// such as validate's list of config errors.
var errSilent = errors.New("failed; reasons printed above")

// exitCode maps the error a command returned to its exit status.
func exitCode(err error) int {
	var partial *job.PartialError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &partial):
		return exitPartial
	}
	return exitUsage
}

// printErrorFor writes what a failed command has to say, once, on stderr:
// "imagebot plan: <error>", and for a usage error where to read the help.
// When actions is set it is an error annotation, which GitHub Actions shows
// on the workflow run's summary, not only deep in the log.
func printErrorFor(w io.Writer, cmdPath string, err error, actions bool) {
	if err == nil || errors.Is(err, errSilent) || said(err) {
		return
	}
	msg := secret.Scrub(err.Error()) // the last stop before a log or annotation
	if actions {
		fmt.Fprintf(w, "::error title=%s::%s\n", cmdPath, escapeAnnotation(msg))
	} else {
		fmt.Fprintf(w, "%s: %s\n", cmdPath, msg)
	}
	var usage *usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmdPath)
	}
}

// said reports whether err is a partial failure that the output already
// described: a *job.PartialError without an error of its own.
func said(err error) bool {
	var partial *job.PartialError
	return errors.As(err, &partial) && partial.Err == nil
}
