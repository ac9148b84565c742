// Package forge is the room of the git hosts: the Forge interface that the
// pull-request lifecycle (internal/gitops) speaks, the types it speaks in
// (Change, Query, Issue, ...), the errors every host returns for the same
// answer (ErrNotFound, ErrNoRepository, ErrForbidden, ErrIssuesOff,
// *HTTPError, *RateLimitError), and what every driver builds on: Pages, the
// one paging loop (a cap, a page that links back is an error); the
// retrying API client (RetryingClient, APIClient, APIGuard); Credentials
// and a GitHub App's (App); Host and its CheckRemote, the rule that a token
// goes to its own server only; RepoPath for hosts installed under a path.
//
// Choose decides which host a repository is on (flags, CI environment,
// origin), once, for run, serve, rollback and init; Open connects to it
// through the driver registered for its Kind.
//
// Each host is a driver in forge/<host>/ (github, gitlab, gitea,
// bitbucket: Cloud and Data Center, azure), as
// drone/go-scm keeps scm/ and scm/driver/<host>/: it implements Forge and
// registers itself (Register) when imported; forge/hosts links them all
// into the program. Adding a host is adding a folder. This package imports
// no host's SDK and no driver: the lifecycle and job use it without
// linking a host's client.
package forge
