package gitops

import "errors"

// errRateLimited stops a run's writes once the host asked for more
// patience than the run has.
var errRateLimited = errors.New("rate-limited")

// isRateLimit reports whether err is the host refusing for a rate limit:
// a Forge's *RateLimitError (ghErr for GitHub), or errRateLimited.
func isRateLimit(err error) bool {
	var rl *RateLimitError
	return errors.Is(err, errRateLimited) || errors.As(err, &rl)
}
