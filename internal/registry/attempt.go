package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// errTimedOut is the cause of an attempt's context when WithTimeout runs out.
var errTimedOut = errors.New("timed out")

// attempt sends one HTTP request to a host's registry (or to its token
// service or blob storage): only while the host is usable, in one of its
// slots, within its budget and WithTimeout, with the body capped by kind.
// It is where a host learns that it is down.
type attempt struct {
	h    *host
	next http.RoundTripper
}

func (a *attempt) RoundTrip(req *http.Request) (*http.Response, error) {
	h := a.h
	if err := h.blocked(); err != nil {
		return nil, err
	}
	release, err := h.acquire(req.Context())
	if err != nil {
		return nil, err
	}
	// The host may have gone down while this request waited for a slot.
	if err := h.blocked(); err != nil {
		release()
		return nil, err
	}
	if err := h.spend(); err != nil {
		release()
		return nil, err
	}
	k := kindOf(req, h.realm())
	ctx, cancel := context.WithTimeoutCause(req.Context(), h.c.o.timeout, errTimedOut)
	resp, err := a.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		err = h.failed(req.Context(), ctx, err)
		cancel()
		release()
		h.stats.add(k, 0, true)
		return nil, err
	}
	h.answered()
	h.stats.add(k, resp.StatusCode, failed(resp.StatusCode))
	done := func() { cancel(); release() }
	if err := h.tooLongToWait(resp); err != nil {
		resp.Body.Close()
		done()
		return nil, err
	}
	limit := h.bodyLimit(k)
	if resp.ContentLength > limit {
		resp.Body.Close()
		done()
		return nil, &permanent{fmt.Errorf("%s %s: body of %d bytes is over the %d allowed", req.Method, redact(req.URL), resp.ContentLength, limit)}
	}
	if req.Method == http.MethodHead || resp.ContentLength == 0 || resp.Body == nil || resp.Body == http.NoBody {
		// Nothing to read: the slot is free now, not when (or if) the
		// caller closes the body.
		done()
		return resp, nil
	}
	// go-containerregistry leaves some error bodies unclosed: the slot is
	// freed at the attempt's deadline at the latest.
	context.AfterFunc(ctx, release)
	resp.Body = &body{ReadCloser: resp.Body, h: h, req: req, ctx: ctx, done: cancel, limit: limit}
	return resp, nil
}

// failed turns a request that got no answer into an error that says so,
// and counts it against the host's health, unless the caller gave up
// first or the host answered in plain HTTP (an answer, if not the one
// wanted).
func (h *host) failed(caller, attempt context.Context, err error) error {
	if caller.Err() != nil {
		return err
	}
	if errors.Is(context.Cause(attempt), errTimedOut) {
		err = fmt.Errorf("registry %s did not answer within %s", h.name, h.c.o.timeout)
	}
	var rh tls.RecordHeaderError
	if errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh) {
		return err
	}
	h.unanswered(err)
	return err
}

// failed tells which statuses count as errors. 401 does not: it is how a
// registry starts the token dance, not a failure.
func failed(status int) bool {
	return status >= 400 && status != http.StatusUnauthorized
}

// bodyLimit caps what one answer may weigh, so that no registry can make a
// run hold more than a few MiB per request in flight.
func (h *host) bodyLimit(k kind) int64 {
	l := h.c.o.limits
	switch k {
	case kindTags:
		return l.PageBytes
	case kindManifestGet, kindManifestHead, kindReferrers:
		return l.ManifestBytes
	case kindBlob:
		return l.BlobBytes
	}
	return 1 << 20 // pings, tokens, errors
}

// body is a response body that frees its attempt's slot once read to the
// end or closed, stops at its cap, and reports a registry that stops
// sending mid-body.
type body struct {
	io.ReadCloser
	h     *host
	req   *http.Request
	ctx   context.Context
	done  func()
	limit int64
	n     int64
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		b.done()
		return 0, &permanent{fmt.Errorf("%s %s: body is over the %d bytes allowed", b.req.Method, redact(b.req.URL), b.limit)}
	}
	switch {
	case err == io.EOF:
		b.done()
	case err != nil:
		err = b.h.failed(b.req.Context(), b.ctx, err)
		b.done()
	}
	return n, err
}

func (b *body) Close() error {
	defer b.done()
	return b.ReadCloser.Close()
}
