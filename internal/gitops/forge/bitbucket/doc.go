// Package bitbucket is Bitbucket Cloud (bitbucket.org, REST API 2.0,
// --forge bitbucket) and Bitbucket Data Center (REST API 1.0 at any URL,
// --forge bitbucket-server) as forge.Forge: pull requests, their comments
// and reviewers, commit build statuses, and the dashboard as an issue where
// the repository's issue tracker is on (Cloud; forge.ErrIssuesOff where it
// is off, Bitbucket's default, and always on Data Center, which has no
// issue tracker: the run reports the dashboard off in one line).
//
// The client is a small typed one of our own on forge.RetryingClient,
// shared by both (they differ in paths, paging and auth, not in shape).
// For Data Center the maintained choice, gfleury/go-bitbucket-v1, has no
// releases. For Cloud, github.com/ktrysmt/go-bitbucket (v0.10.0, looked at
// for this decision) covers the endpoints, but its pull-request calls
// answer interface{} (maps to decode again), and its listings are read to
// their end inside the library (executePaginated), so forge.Pages' page
// cap, link-back check and dropping of other people's pull requests page
// by page could not apply; it would also leave Data Center a second
// client. The dozen endpoints the lifecycle needs are each one request
// with a documented JSON shape, as the fake in
// internal/testing/bitbuckettest answers them.
//
// How Bitbucket Cloud differs from the other hosts, and what the driver
// does about it:
//   - Auth is an Atlassian API token with scopes, sent as Basic auth with
//     the account's e-mail (BITBUCKET_USERNAME) as the user; git pushes use
//     the user x-bitbucket-api-token-auth with the same token. App
//     passwords stopped working in June 2026.
//   - People are account IDs ("557058:…") or UUIDs ("{…}"): Bitbucket has
//     shown no usernames since 2019. Logins, authors and reviewers are
//     account IDs.
//   - Closed unmerged is DECLINED (and SUPERSEDED); the driver reads both
//     as closed and not merged. Closing a pull request declines it.
//   - The API adds no default reviewers to a pull request it opens (the
//     web page does): CreateChange asks for the effective default
//     reviewers and names them.
//   - An update (PUT) drops every reviewer it does not name: edits send
//     the current reviewers back.
//   - There are no labels on pull requests and none on issues: Label does
//     nothing, and the dashboard issue carries none.
//   - There is no auto-merge: EnableAutoMerge is forge.ErrNotSupported.
//   - There are no group reviewers through the API.
//
// Data Center differs again: an HTTP access token as Bearer (git: the
// token as password); people are user names, and X-AUSERNAME on every
// answer says who the token is (no request); pages are start and limit
// (isLastPage, nextPageStart); writes carry the pull request's version,
// and a stale one (a 409) is read again and retried once; a duplicate's
// 409 carries the open pull request; the server adds default reviewers
// itself; auto-merge is POST .../auto-merge (8.15 and later).
package bitbucket
