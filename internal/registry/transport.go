package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// newTransport builds the chain every request of a Client goes through,
// outermost first (go-containerregistry's auth transport sits above it):
//
//	schemes -> retryablehttp -> http.Client{Timeout} -> counter -> limiter -> base
//
// Retries sit above the counter so that Stats sees every attempt, and above
// the limiter so that a request waiting out a Retry-After holds no slot.
func newTransport(o options, schemes map[string]string, st *stats, log *slog.Logger) http.RoundTripper {
	base := o.transport
	if base == nil {
		base = newBaseTransport(o)
	}
	lim := &limiter{sem: make(chan struct{}, o.concurrency), next: base}
	cnt := &counter{stats: st, next: lim}

	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{
		Transport: cnt,
		Timeout:   o.timeout,
		// Redirects (blob storage, CDNs) go back up to go-containerregistry,
		// which decides which host may see an Authorization header.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	rc.RetryMax = o.retryMax
	rc.RetryWaitMin = min(500*time.Millisecond, o.retryWait)
	rc.RetryWaitMax = o.retryWait
	rc.Backoff = backoff
	rc.CheckRetry = checkRetry
	rc.ErrorHandler = lastResponse
	rc.Logger = leveled{log}

	var next http.RoundTripper = &retryablehttp.RoundTripper{Client: rc}
	if len(schemes) > 0 {
		next = &schemeTransport{want: schemes, next: next}
	}
	return next
}

// newBaseTransport is the one transport shared by all hosts of a Client:
// connections are pooled and every phase of a request has a deadline.
func newBaseTransport(o options) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = o.timeout
	t.MaxIdleConnsPerHost = o.concurrency
	return t
}

// checkRetry retries what retryablehttp retries by default (429, 5xx except
// 501, network errors and timeouts; never 4xx such as 401 or 404), except a
// TLS handshake answered in plain HTTP: that never heals, and
// go-containerregistry's ping races https against http for local hosts.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var rh tls.RecordHeaderError
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) {
		return false, err
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// backoff waits what the registry asks for in Retry-After, else doubles from
// min; either way never longer than max (WithRetry's maxWait), so a registry
// that asks for an hour cannot stall a run.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
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

// retryAfter parses a Retry-After value: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
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

// lastResponse hands the last response up when retries are exhausted, so
// that go-containerregistry turns it into a transport.Error carrying the
// status and the registry's diagnostics rather than "giving up after 5
// attempts". Returning a response together with an error would make
// net/http drop the response and log to the standard logger.
func lastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil {
		return resp, nil
	}
	return nil, err
}

// schemeTransport sends requests for a mirror host with the scheme its URL
// names. go-containerregistry picks http by itself for loopback and private
// addresses, and pings https first even for hosts it knows are insecure;
// for a mirror the configuration decides: http only when written so.
type schemeTransport struct {
	want map[string]string // host -> "http" or "https"
	next http.RoundTripper
}

func (s *schemeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	want, ok := s.want[req.URL.Host]
	if !ok || req.URL.Scheme == want {
		return s.next.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	out.URL.Scheme = want
	resp, err := s.next.RoundTrip(out)
	if resp != nil && want == "https" {
		// Relative Link headers resolve against resp.Request; the next page
		// must keep the scheme go-containerregistry validates against, and
		// it comes back here to be upgraded again.
		resp.Request = req
	}
	return resp, err
}

// limiter bounds the requests in flight. A slot is held until the body is
// read to the end or closed, or at the latest until the request's deadline:
// http.Client{Timeout} above gives every request one, and
// go-containerregistry leaves some error bodies unclosed, which must not
// hold a slot for ever.
type limiter struct {
	sem  chan struct{}
	next http.RoundTripper
}

func (l *limiter) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case l.sem <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	release := sync.OnceFunc(func() { <-l.sem })
	resp, err := l.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		release()
		return resp, err
	}
	context.AfterFunc(req.Context(), release)
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *releasingBody) Close() error {
	defer b.release()
	return b.ReadCloser.Close()
}

// counter records every attempt per host for Stats.
type counter struct {
	stats *stats
	next  http.RoundTripper
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	c.stats.add(req.URL.Host, err != nil || failed(resp.StatusCode))
	return resp, err
}

// failed tells which statuses count as errors. 401 does not: it is how a
// registry starts the token dance, not a failure.
func failed(status int) bool {
	return status >= 400 && status != http.StatusUnauthorized
}

// leveled lets retryablehttp log through slog. It reports every failed
// attempt at Error level; the final error reaches the plan as a problem
// naming the file and line, so single attempts are only debug noise.
type leveled struct{ l *slog.Logger }

func (l leveled) Error(msg string, kv ...any) { l.l.Debug(msg, kv...) }
func (l leveled) Warn(msg string, kv ...any)  { l.l.Debug(msg, kv...) }
func (l leveled) Info(msg string, kv ...any)  { l.l.Info(msg, kv...) }
func (l leveled) Debug(msg string, kv ...any) { l.l.Debug(msg, kv...) }
