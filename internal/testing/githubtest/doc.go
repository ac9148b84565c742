// Package githubtest is a stateful fake of the GitHub REST API, for the
// subset that imagebot's pull-request lifecycle uses, served over HTTP so
// that tests drive it with the real go-github client.
//
// It answers with GitHub's JSON shapes, status codes, error bodies, Link
// pagination and rate-limit headers, including GitHub's sharp edges that a
// bot must survive: list results lack "merged" (use merged_at), a head filter
// without "owner:" is silently ignored, creating a second PR for a branch or
// a PR without commits is a 422, deleting a PR's head branch closes it, and a
// closed PR whose branch was force-pushed cannot be reopened. Branches and
// merges come from a GitBackend (BareRepos over gittest's repositories), so
// the commits imagebot pushes are the commits the fake reasons about.
//
// GitHub Apps authenticate as GitHub checks them: AddApp registers one with
// its public key, Install puts it on repositories; its JWT must be RS256,
// iss its id, issued in the past and expiring within ten minutes, and is
// good only for GET /app, GET /repos/{owner}/{repo}/installation and
// POST /app/installations/{id}/access_tokens. Installation tokens reach the
// installation's repositories only and expire after WithTokenLifetime in
// the fake's clock, then answer 401; ValidToken is the same check for
// gittest.CheckTokens. WriteLog says who made each write.
//
// The Git Data API (blobs, trees, commits, refs) writes real objects into
// the repository behind the fake (GitData), so a fetch over git sees what
// the API made. A bot's commit made without author, committer or signature
// is authored by the bot and signed with the fake's web-flow key
// (SigningKey), and reported verified, as GitHub does.
//
// Tests script the human side with ClosePR and MergePR, inject faults with
// FailNext (rate limits, 5xx), set the hourly budget with WithRateLimit
// (403 with X-RateLimit-Remaining: 0 and the reset beyond it), enforce
// GitHub's secondary limit on writes with WithSecondaryLimit (403 or 429
// with Retry-After), live in a fake clock with WithClock, and assert on PRs,
// Writes and Requests.
//
// It never models forks, issues that are not pull requests, reviews, checks
// or webhooks; unknown routes answer 404 like GitHub does.
package githubtest
