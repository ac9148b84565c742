// Package forge is the room of the git hosts: the Forge interface that the
// pull-request lifecycle (internal/gitops) speaks, the types it speaks in
// (Change, Query, Issue, ...), the errors every host returns for the same
// answer (ErrNotFound, ErrIssuesOff, *RateLimitError, ...) and the
// credentials git and the API authenticate with.
//
// Each host is a driver implementing Forge outside this package, in
// forge/<host>/ (as drone/go-scm keeps scm/ and scm/driver/<host>/). This
// package imports no host's SDK and no driver: the lifecycle and job can use
// it without linking a host's client.
package forge
