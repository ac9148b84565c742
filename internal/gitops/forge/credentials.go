package forge

import (
	"context"

	"github.com/imagebot/imagebot/internal/secret"
)

// Credentials are what a run authenticates with, to the API and to git.
type Credentials interface {
	// Token is a token good for a few minutes at least: longer than a
	// rate-limit wait or a push, so that neither carries an expired one.
	Token(ctx context.Context) (string, error)
	// Scrub removes every secret handed out from err; the error keeps
	// its kind.
	Scrub(err error) error
}

// StaticToken is a token that never changes (GITHUB_TOKEN, GITLAB_TOKEN,
// GITEA_TOKEN), or no token at all when empty.
type StaticToken string

func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

func (t StaticToken) Scrub(err error) error { return secret.Error(err, string(t)) }
