// Package bitbucket is Bitbucket Cloud (bitbucket.org, REST API 2.0) as a
// forge.Forge: pull requests, their comments and reviewers, commit build
// statuses, and the dashboard as an issue where the repository's issue
// tracker is on (forge.ErrIssuesOff where it is off, Bitbucket's default).
//
// The client is a small typed one of our own on forge.RetryingClient,
// not github.com/ktrysmt/go-bitbucket: that library's calls take no
// context, return most answers as map[string]interface{} and its errors
// without the HTTP status, and page by its own loop, so the lifecycle
// could neither cancel a call, tell a 404 from a 403 nor bound a listing
// with forge.Pages. The dozen endpoints the lifecycle needs are each one
// request with a documented JSON shape (checked against Atlassian's
// published OpenAPI document, swagger.v3.json, and the fake in
// internal/testing/bitbuckettest).
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
package bitbucket
