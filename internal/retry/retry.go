package retry

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/imagebot/imagebot/internal/localnet"
)

// Permanent marks an error that retrying cannot heal: a body over its cap,
// a host that is down or asked for a longer rest than the client waits, a
// refused redirect.
type Permanent struct{ Err error }

func (p *Permanent) Error() string { return p.Err.Error() }
func (p *Permanent) Unwrap() error { return p.Err }

// MinWait is the first wait between two attempts, which Backoff doubles.
// Only tests change it: the CLI scripts run the real binary against
// servers that refuse, and must not sleep through its backoff.
var MinWait = 500 * time.Millisecond

// Transport retries the requests that next fails with check's consent, at
// most max times, waiting at most maxWait between two attempts (Backoff).
// When the retries are spent it hands up the last response, not an error,
// so that the caller reads the status and the server's diagnostics.
// Redirects are handed up too, never followed.
func Transport(next http.RoundTripper, max int, maxWait time.Duration, check retryablehttp.CheckRetry, log *slog.Logger) http.RoundTripper {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{
		Transport:     next,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	rc.RetryMax = max
	rc.RetryWaitMin = min(MinWait, maxWait)
	rc.RetryWaitMax = maxWait
	rc.Backoff = Backoff
	rc.CheckRetry = check
	rc.ErrorHandler = lastResponse
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rc.Logger = leveled{log}
	return &retryablehttp.RoundTripper{Client: rc}
}

// Check retries what retryablehttp retries by default (429, 5xx except
// 501, network errors and timeouts; never 4xx such as 401 or 404), except
// what never heals: a TLS handshake answered in plain HTTP, a dial the
// local-host guard refused, and errors marked Permanent.
func Check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var rh tls.RecordHeaderError
	var p *Permanent
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) || errors.As(err, &p) || errors.Is(err, localnet.ErrLocal) {
		return false, err
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// Backoff waits what the server asks for in Retry-After, else doubles from
// minWait; either way never longer than maxWait. A client fails a longer
// Retry-After at once (TooLong) rather than wait it out.
func Backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := After(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(d, maxWait)
		}
	}
	d := minWait
	for i := 0; i < attempt && d < maxWait; i++ {
		d *= 2
	}
	// Jitter spreads the retries of concurrent lookups hitting one limit.
	d += time.Duration(rand.Int64N(int64(d)/4 + 1))
	return min(d, maxWait)
}

// After parses a Retry-After value: delay seconds or an HTTP date.
func After(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// TooLong returns the wait a 429 or 503 asks for with Retry-After when it
// is longer than maxWait: such an answer is failed at once, not retried.
func TooLong(resp *http.Response, maxWait time.Duration) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	d, ok := After(resp.Header.Get("Retry-After"), time.Now())
	return d, ok && d > maxWait
}

// lastResponse hands the last response up when retries are exhausted, so
// that the caller sees the status and the server's diagnostics rather than
// "giving up after 5 attempts". Returning a response together with an
// error would make net/http drop the response and log to the standard
// logger. The url.Error of the inner http.Client is dropped: the caller's
// own client names the URL again.
func lastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil {
		return resp, nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return nil, ue.Err
	}
	return nil, err
}

// leveled lets retryablehttp log through slog. It reports every failed
// attempt at Error level; the final error reaches the user with its
// context, so single attempts are only debug noise.
type leveled struct{ l *slog.Logger }

func (l leveled) Error(msg string, kv ...any) { l.l.Debug(msg, kv...) }
func (l leveled) Warn(msg string, kv ...any)  { l.l.Debug(msg, kv...) }
func (l leveled) Info(msg string, kv ...any)  { l.l.Info(msg, kv...) }
func (l leveled) Debug(msg string, kv ...any) { l.l.Debug(msg, kv...) }
