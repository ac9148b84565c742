// Package retry is the one retry policy of imagebot's HTTP clients for
// registries and Helm chart repositories: which failures are tried again
// (429, 5xx except 501, network errors and timeouts; never another 4xx),
// how long to wait between attempts (what Retry-After asks, else a doubling
// backoff with jitter, never beyond a cap), and what never heals (errors
// marked Permanent, a TLS handshake answered in plain HTTP, a Retry-After
// beyond the cap). It wraps go-retryablehttp.
//
// It never follows a redirect (the caller decides which host may see its
// credentials) and never logs above debug level for a single failed
// attempt: the final error is what reaches the user. GitHub's rate limits
// are another policy, with their own clock (internal/gitops).
package retry
