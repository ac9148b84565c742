// Package secret keeps credentials on their own host and out of messages.
//
// Every API client of a forge (GitHub, GitLab, Gitea) follows a redirect
// only to the scheme, host and port it was sent to (CheckRedirect):
// net/http copies a custom header such as GitLab's PRIVATE-TOKEN on every
// redirect, and Authorization on one to another port of the same host.
// Every error body a forge or registry answers has the request's
// credentials, and anything shaped like a token, replaced before a client
// library reads it (Transport), and errors are scrubbed again (Error)
// before they are wrapped, logged or written anywhere: a proxy's or a
// server's error page may quote the request it refused.
package secret
