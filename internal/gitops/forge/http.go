package forge

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/secret"
)

// Clock is the time a run waits in. Waiting out a host's rate limits is
// the only waiting a run does.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the machine's time.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// secondaryWait is what GitHub asks of a client that hit a secondary rate
// limit without being told how long to wait: "at least one minute".
const secondaryWait = time.Minute

// RetryingClient is the HTTP client under every driver's API client: it
// retries rate limits and server errors, waiting as GitHub
// asks (Retry-After, X-RateLimit-Reset) but never longer than maxWait, and a
// bounded number of times. A 422 or 404 is an answer, never retried. A rate
// limit it does not wait for reaches the caller, which stops writing.
//
// It dials through guard: an address on this machine or its networks only
// for the hosts the operator named (APIGuard).
func RetryingClient(maxWait time.Duration, clock Clock, log *slog.Logger, guard *localnet.Guard) *http.Client {
	rc := retryablehttp.NewClient()
	if t, ok := rc.HTTPClient.Transport.(*http.Transport); ok {
		t.DialContext = guard.DialContext(nil)
	}
	// A redirect is handed up, never followed here: the client above
	// follows it only to the API's own origin (APIClient), where the
	// credentials may go.
	rc.HTTPClient.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	rc.RetryMax = 3
	rc.RetryWaitMin = 500 * time.Millisecond
	rc.RetryWaitMax = maxWait
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if errors.Is(err, localnet.ErrLocal) {
			return false, err // refused by the guard: never heals
		}
		if err != nil {
			return true, nil
		}
		if d, limited := RateLimitWait(resp, clock.Now()); limited {
			return d <= maxWait, nil
		}
		return resp.StatusCode >= 500, nil
	}
	// The wait happens here, in the run's clock, and retryablehttp's own
	// timer gets nothing left to wait: that keeps tests out of real time.
	// Only a transport error (no response, no request context to wait
	// in) is left to retryablehttp's timer, at its short backoff.
	rc.Backoff = func(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
		d, limited := RateLimitWait(resp, clock.Now())
		if !limited {
			d = retryablehttp.DefaultBackoff(lo, hi, attempt, resp)
		}
		d = min(d, hi)
		if resp == nil || resp.Request == nil {
			return d
		}
		if limited {
			log.Info("rate limit: waiting", "host", resp.Request.URL.Host, "wait", d, "status", resp.StatusCode)
		}
		clock.Sleep(resp.Request.Context(), d)
		return 0
	}
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return &http.Client{Transport: &retryablehttp.RoundTripper{Client: rc}, Timeout: time.Duration(rc.RetryMax)*maxWait + time.Minute,
		CheckRedirect: secret.CheckRedirect}
}

// RateLimitWait says whether resp is one of GitHub's rate limits and how
// long it asks to wait. Primary limits are a 403 or 429 with
// X-RateLimit-Remaining: 0 and a reset time; secondary ones a 403 or 429
// with Retry-After, or a 429 alone. GitLab's are a 429 with Retry-After or
// RateLimit-Reset. A 403 without either is a permission answer, not a
// limit.
func RateLimitWait(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil || (resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests) {
		return 0, false
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			return time.Duration(n) * time.Second, true
		}
		if t, err := http.ParseTime(s); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			// GitHub's reset is in whole seconds; a second more makes
			// sure the window has turned when the retry arrives.
			return max(time.Unix(n, 0).Sub(now), 0) + time.Second, true
		}
		return secondaryWait, true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		// GitLab's 429 says when its window turns in RateLimit-Reset.
		if n, err := strconv.ParseInt(resp.Header.Get("RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(n, 0).Sub(now), 0) + time.Second, true
		}
		return secondaryWait, true
	}
	return 0, false
}

// APIClient is hc as a driver's API client uses it: error bodies and
// transport errors scrubbed of the credentials each request carried
// (secret.Transport, under the SDK, which adds the token to the request),
// and redirects followed only to the API's own scheme, host and port
// (secret.CheckRedirect), since the SDKs' token headers would follow them.
func APIClient(hc *http.Client) *http.Client {
	c := *hc
	c.Transport = secret.Transport(hc.Transport)
	c.CheckRedirect = secret.CheckRedirect
	return &c
}

// APIGuard allows the hosts of the API (api) and of the git remote
// (remote) wherever they resolve: the operator named them (a self-hosted
// GitLab on the office network is one). Any other host an API answer
// leads to is dialled only if it is not on this machine or its networks.
func APIGuard(api, remote string) *localnet.Guard {
	var hosts []string
	for _, raw := range []string{api, remote} {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			hosts = append(hosts, u.Host, withPort(u))
		} else if _, rest, ok := strings.Cut(raw, "@"); ok {
			// scp-like git@host:path
			if h, _, ok := strings.Cut(rest, ":"); ok {
				hosts = append(hosts, h)
			}
		}
	}
	return localnet.NewGuard(hosts)
}

// withPort is u's host with its port, the scheme's default if none.
func withPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
