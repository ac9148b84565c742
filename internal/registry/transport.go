package registry

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/retry"
)

// Every request of a Client goes through this chain, outermost first:
//
//	go-containerregistry's auth (one per token group, see auth.go)
//	  -> front: the host's one scheme; /v2/ answered from the probe
//	    -> breaker: a request unanswered after its retries counts
//	      -> retryablehttp: 429, 5xx and network errors, with backoff
//	        -> attempt: health, slot, budget, Stats, timeout, body caps
//	          -> the base transport, shared by all hosts
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
		if err := f.h.c.checkLocal(req.URL.Host, f.h.name); err != nil && !localnet.Is(f.h.name) {
			return nil, &permanent{Err: fmt.Errorf("refusing %s, where registry %s sent us: %w", redact(req.URL), f.h.name, ErrLocalHost)}
		}
		if f.h.c.allowedLocal[f.h.name] || localnet.Is(f.h.name) {
			// A registry the config names may send us to its token
			// service or storage on its own network.
			req = req.WithContext(localnet.Vouch(req.Context()))
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
	// Redirects (blob storage, CDNs) go back up to go-containerregistry,
	// which decides which host may see an Authorization header.
	return retry.Transport(next, o.retryMax, o.retryWait, checkRetry, log)
}

// checkRetry is the retry policy (retry.Check) less what a request for a
// token shared by several repositories must not retry: that group is
// asked again in smaller groups instead (authenticate).
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if isSharedToken(ctx) && (err != nil || resp.StatusCode >= 500) {
		return false, err
	}
	return retry.Check(ctx, resp, err)
}
