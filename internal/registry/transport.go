package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Every request of a Client goes through this chain, outermost first:
//
//	go-containerregistry's auth (one per token group, see auth.go)
//	  -> front: the host's one scheme; /v2/ answered from the probe
//	    -> retryablehttp: 429, 5xx and network errors, with backoff
//	      -> attempt: health, slot, budget, Stats, timeout, body caps
//	        -> the base transport, shared by all hosts
//
// Retries sit above the attempt so that every attempt is counted and
// spends the budget, and so that a request waiting out a Retry-After
// holds no slot.

// baseTransport is the one transport shared by every Client of the
// process: connections are pooled across runs (serve makes a Client per
// run, and a transport per Client would leave each run's idle connections
// open until they time out), and the attempt bounds every request in time.
var baseTransport = sync.OnceValue(func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.MaxIdleConnsPerHost = 64
	return t
})

// front gives go-containerregistry a host with one scheme. It contacts
// the registry host only with the host's scheme (go-containerregistry
// tries https first even for hosts it knows are insecure, and http for
// some it does not); it refuses to follow a redirect from https to http;
// and it answers GET /v2/ from the host's probe, since go-containerregistry
// pings once per repository scope and a run needs one probe per host.
type front struct {
	h    *host
	next http.RoundTripper
}

func (f *front) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != f.h.name {
		if req.URL.Scheme == "http" && (f.h.scheme == "https" || redirectedFromHTTPS(req)) {
			return nil, fmt.Errorf("refusing %s: registry %s is spoken to over https, never downgraded to http", redact(req.URL), f.h.name)
		}
		// A redirect or token realm may not lead a remote registry to
		// this machine or its private network.
		if err := f.h.c.checkLocal(req.URL.Host, f.h.name); err != nil && !isLocal(f.h.name) {
			return nil, &permanent{fmt.Errorf("refusing %s, where registry %s sent us: %w", redact(req.URL), f.h.name, ErrLocalHost)}
		}
		return f.next.RoundTrip(req)
	}
	if req.URL.Scheme != f.h.scheme {
		req = req.Clone(req.Context())
		req.URL.Scheme = f.h.scheme
	}
	if req.Method == http.MethodGet && (req.URL.Path == "/v2/" || req.URL.Path == "/v2") {
		if ans, ok := f.h.pinged.lookup(""); ok && ans.err == nil {
			return replay{f.h, ans.v}.RoundTrip(req)
		}
	}
	return f.next.RoundTrip(req)
}

func redirectedFromHTTPS(req *http.Request) bool {
	for r := req.Response; r != nil && r.Request != nil; r = r.Request.Response {
		if r.Request.URL.Scheme == "https" {
			return true
		}
	}
	return false
}

// redact drops the query of a URL for messages: a token request's query
// names no secret, but a CDN's signed URL does.
func redact(u *url.URL) string {
	out := *u
	out.RawQuery, out.User = "", nil
	return out.String()
}

func newRetrier(o options, next http.RoundTripper, log *slog.Logger) http.RoundTripper {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{
		Transport: next,
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
	return &retryablehttp.RoundTripper{Client: rc}
}

// checkRetry retries what retryablehttp retries by default (429, 5xx except
// 501, network errors and timeouts; never 4xx such as 401 or 404), except
// what never heals: a TLS handshake answered in plain HTTP, a host that is
// down or asked for a longer rest than we wait, a spent budget, a body
// over its cap.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var rh tls.RecordHeaderError
	var p *permanent
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) || errors.As(err, &p) {
		return false, err
	}
	if isSharedToken(ctx) && (err != nil || resp.StatusCode >= 500) {
		return false, err // asked again in smaller groups (authenticate)
	}
	return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
}

// backoff waits what the registry asks for in Retry-After, else doubles from
// min; either way never longer than max (WithRetry's maxWait). A longer
// Retry-After never gets here: the attempt fails it (host.tooLongToWait).
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
// net/http drop the response and log to the standard logger. The
// url.Error of the inner http.Client is dropped: the caller's own client
// names the URL again.
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
// attempt at Error level; the final error reaches the plan as a problem
// naming the file and line, so single attempts are only debug noise.
type leveled struct{ l *slog.Logger }

func (l leveled) Error(msg string, kv ...any) { l.l.Debug(msg, kv...) }
func (l leveled) Warn(msg string, kv ...any)  { l.l.Debug(msg, kv...) }
func (l leveled) Info(msg string, kv ...any)  { l.l.Info(msg, kv...) }
func (l leveled) Debug(msg string, kv ...any) { l.l.Debug(msg, kv...) }
