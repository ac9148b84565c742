// Package azure is the Azure DevOps driver (Services, dev.azure.com, and
// Server at any URL): pull requests, their tags as labels, reviewers,
// drafts, auto-complete as auto-merge, comment threads and commit
// statuses, through REST api-version 7.1.
//
// The client is a small typed one of our own (client.go) on the forge
// package's retrying HTTP client, not microsoft/azure-devops-go-api: that
// SDK has not released since 2023, is generated for every area of Azure
// DevOps (tens of thousands of lines linked for the dozen calls the
// lifecycle makes), takes its own HTTP client and auth, so neither the
// retrying client's rate-limit waits nor its dial guard would apply, and
// reports errors as its own WrappedError types the shared errors would have
// to be dug out of. The dozen endpoints used are checked against the
// published REST reference (learn.microsoft.com/rest/api/azure/devops/git,
// version 7.1), and the fake in internal/testing/azuretest answers as it
// documents.
//
// Choices where Azure DevOps differs:
//   - Closing is abandoning ("abandoned"); a merged pull request is
//     "completed". Labels are the pull request's tags (labels API), which
//     need no creating first.
//   - Listings page by $top and $skip with no link to the next page: a
//     page shorter than asked is the last (forge.Pages). Refs page by the
//     x-ms-continuationtoken header (forge.TokenPages).
//   - A listing cuts descriptions to 400 characters, and imagebot's
//     marker (what a pull request proposes) ends the body: the driver
//     stores it first instead (an HTML comment, not shown) and puts it
//     back on reading, so the listing holds it. A rerun with nothing to
//     do costs the repository, connectionData and one listing per 100
//     open pull requests. A pull request whose description was cut
//     without a whole marker first (the onboarding one, a marker over
//     ~390 characters for a large group) is read whole, one request each.
//   - Descriptions hold 4,000 characters at most: a longer body loses
//     its middle, with a line that says so; the marker is kept.
//   - Reviewers are identities: a login (the sign-in name, e-mail) or a
//     team ("[Project]\Team", or "Project/Team") is looked up through the
//     identities API, at vssps.dev.azure.com for Services.
//   - Auto-merge is auto-complete, set by the token's own identity, with
//     the branch deleted on completion.
//   - The dashboard is off (forge.ErrNoIssueTracker): Azure Boards work items
//     live in a separate service a repository may not use, with process
//     templates whose types and required fields differ per project; a
//     work item that fails to save for a field the bot cannot know would
//     be worse than a plain "dashboard off" line.
//   - Auth: AZURE_DEVOPS_TOKEN, a PAT (Basic, empty user), or Azure
//     Pipelines' SYSTEM_ACCESSTOKEN, a JWT (Bearer); the token's shape
//     tells which.
package azure
