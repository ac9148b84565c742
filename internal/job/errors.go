package job

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PartialError says that a command did what it could while some lookups or
// pull requests failed (exit status 2). Err, when set, is what failed; nil
// means that the report already says it.
type PartialError struct{ Err error }

func (e *PartialError) Error() string {
	if e.Err == nil {
		return "some lookups or pull requests failed"
	}
	return e.Err.Error()
}
func (e *PartialError) Unwrap() error { return e.Err }

// partial is a partial failure that the report describes.
func partial() error { return &PartialError{} }

// ErrNoToken is Run's and Rollback's error when the git host's token (or,
// on GitHub, an App) is not set (Run without DryRun; a dry run previews
// instead). The error returned is the host's own message for the command
// (Access.NoToken), which is ErrNoToken.
var ErrNoToken = errors.New("no token for the git host")

// explained is an error rewritten to say what happened and what to do. It
// prints as its message alone, and still unwraps to the error it explains,
// so that callers can test for the cause.
type explained struct {
	msg   string
	cause error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.cause }

func explain(cause error, format string, args ...any) error {
	return &explained{msg: fmt.Sprintf(format, args...), cause: cause}
}

// status is "401 Unauthorized" for a refusal with its status code and
// what the server said, without saying the code twice: GitLab's message
// is "401 Unauthorized" already.
func status(code int, msg string) string {
	c := strconv.Itoa(code)
	if msg == c || strings.HasPrefix(msg, c+" ") {
		return msg
	}
	return strings.TrimSpace(c + " " + msg)
}
