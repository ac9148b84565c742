package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// sharedTokenKey marks the context of a token request naming several
// repositories (authenticate). Such a request may fail for its length
// alone, however the front says so: it is not retried (asking again in
// smaller groups is its retry) and, unanswered, it says nothing of the
// host's health.
type sharedTokenKey struct{}

func withSharedToken(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedTokenKey{}, true)
}

func isSharedToken(ctx context.Context) bool {
	v, _ := ctx.Value(sharedTokenKey{}).(bool)
	return v
}

// mayBeLength tells the failures of a token request for several
// repositories that its length may have caused: a 5xx, or no answer
// (reset, silence), unless the caller gave up or the host may not be
// asked (down, budget, Retry-After).
func mayBeLength(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var te *transport.Error
	if errors.As(err, &te) {
		return te.StatusCode >= 500
	}
	var p *permanent
	return !errors.As(err, &p)
}

// groupTokenError is the failure of a group's token request. Its message
// names the token service without the request's query: the query lists
// every repository of the group (up to maxTokenURL), and the error is
// repeated in the problem of each of them.
type groupTokenError struct {
	n     int
	realm string
	err   error
}

func (e *groupTokenError) Error() string {
	return fmt.Sprintf("token for %d repositories from %s: %s", e.n, e.realm, dropQuery(e.err.Error(), e.realm))
}

func (e *groupTokenError) Unwrap() error { return e.err }

// dropQuery removes the query of every URL of realm in msg. The query is
// URL-encoded, so a space, a quote or a colon ends it.
func dropQuery(msg, realm string) string {
	if realm == "" {
		return msg
	}
	var b strings.Builder
	for {
		i := strings.Index(msg, realm+"?")
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		i += len(realm)
		b.WriteString(msg[:i])
		msg = msg[i:]
		if j := strings.IndexAny(msg, " \":"); j >= 0 {
			msg = msg[j:]
		} else {
			msg = ""
		}
	}
}
