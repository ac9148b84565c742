package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/localnet"
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
	epoch, err := h.admit(req.Context())
	if err != nil {
		release()
		return nil, err
	}
	if err := h.spend(); err != nil {
		h.settle(nil, true, epoch)
		release()
		return nil, err
	}
	k := kindOf(req, h.realm())
	if n := imagefacts.RequestsOf(req.Context()); n != nil && (k == kindManifestGet || k == kindManifestHead || k == kindBlob) {
		n.Add(1)
	}
	ctx, cancel := context.WithTimeoutCause(req.Context(), h.c.o.timeout, errTimedOut)
	resp, err := a.next.RoundTrip(req.WithContext(ctx))
	var refused *localnet.DialError
	if errors.As(err, &refused) {
		h.settle(nil, true, epoch)
		cancel()
		release()
		return nil, &permanent{Err: fmt.Errorf("%v: if it is yours, name it in the config (registries: {%q: {}}): %w", refused, h.name, ErrLocalHost)}
	}
	if err != nil {
		s, err := h.explain(ctx, err)
		if isSharedToken(req.Context()) {
			s = answered // perhaps refused for its length (authenticate)
		}
		switch s {
		case timedOut:
			h.settle(err, false, epoch)
		case unanswered:
			// Counted once the request's retries are spent, if they are
			// (breaker): a burst of resets on the requests in flight is
			// what retries are for, not a dead host.
			h.settle(nil, true, epoch)
			err = &noAnswer{err}
		default:
			h.settle(nil, true, epoch)
		}
		cancel()
		release()
		h.stats.add(k, 0, true)
		return nil, err
	}
	h.settle(nil, false, epoch)
	h.stats.add(k, resp.StatusCode, failed(resp.StatusCode))
	done := func() { cancel(); release() }
	if err := h.tooLongToWait(resp); err != nil {
		resp.Body.Close()
		done()
		return nil, err
	}
	if resp.StatusCode >= 400 && req.Method != http.MethodHead && resp.Body != nil && resp.Body != http.NoBody {
		sanitizeError(resp, req, done)
		return resp, nil
	}
	limit := h.bodyLimit(k)
	if resp.ContentLength > limit {
		resp.Body.Close()
		done()
		return nil, &permanent{Err: fmt.Errorf("%s %s: body of %d bytes is over the %s allowed", req.Method, redact(req.URL), resp.ContentLength, size(limit))}
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
	resp.Body = &body{ReadCloser: resp.Body, h: h, req: req, ctx: ctx, done: cancel, limit: limit, epoch: epoch}
	return resp, nil
}

// silence is what an attempt that failed without an answer says of its
// host.
type silence int

const (
	// answered: nothing about the host (the caller gave up first), or an
	// answer, if not the one wanted (plain HTTP to a TLS handshake).
	answered silence = iota
	// timedOut counts at once, unless a silence was counted since the
	// attempt was admitted (health): each costs WithTimeout, and a
	// hanging host must cost about two of them, not two per retry.
	timedOut
	// unanswered (a reset, a refused connection, an EOF) counts only for
	// a request whose retries all ended so (breaker).
	unanswered
)

// explain turns a request that failed without an answer into an error
// that says so about the host, and tells what kind of silence it was.
func (h *host) explain(attempt context.Context, err error) (silence, error) {
	var rh tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.Is(context.Cause(attempt), errTimedOut):
		return timedOut, fmt.Errorf("registry %s did not answer within %s", h.name, h.c.o.timeout)
	case attempt.Err() != nil:
		return answered, err // the caller's context ended
	case errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh):
		return answered, err
	case errors.As(err, &ne) && ne.Timeout():
		return timedOut, err
	}
	return unanswered, err
}

// noAnswer is an attempt's error that the breaker counts if it is the
// request's last.
type noAnswer struct{ err error }

func (e *noAnswer) Error() string { return e.err.Error() }
func (e *noAnswer) Unwrap() error { return e.err }

// breaker counts the requests that got no answer after their retries
// toward the host's being down (health), and any answer clears the count
// (attempt). It sits above the retries.
type breaker struct {
	h    *host
	next http.RoundTripper
}

func (b *breaker) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	var na *noAnswer
	if err != nil && errors.As(err, &na) && req.Context().Err() == nil {
		b.h.unanswered(na.err, 0, true)
	}
	return resp, err
}

// size spells a byte count for messages.
func size(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
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
	epoch uint64 // of the attempt's admission (health)
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		b.done()
		return 0, &permanent{Err: fmt.Errorf("%s %s: body is over the %s allowed", b.req.Method, redact(b.req.URL), size(b.limit))}
	}
	switch {
	case err == io.EOF:
		b.done()
	case err != nil:
		// Bodies are read above the retries: this is the request's end.
		var s silence
		if s, err = b.h.explain(b.ctx, err); s != answered {
			b.h.unanswered(err, b.epoch, false)
		}
		b.done()
	}
	return n, err
}

func (b *body) Close() error {
	defer b.done()
	return b.ReadCloser.Close()
}
