package fetch

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/imagebot/imagebot/internal/retry"
)

// capped reads at most left bytes of an answer, then fails. An answer
// that says it is longer fails at its first read, so that the client
// still holds the answer's status.
type capped struct {
	io.ReadCloser
	c      *Client
	length int64 // Content-Length, -1 when unknown
	left   int64
	err    error // set once over the cap
}

func (b *capped) Read(p []byte) (int, error) {
	switch {
	case b.err != nil:
		return 0, b.err
	case b.length > b.left:
		b.err = b.c.tooLarge(b.length)
		return 0, b.err
	case b.left <= 0:
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			b.err = b.c.tooLarge(-1)
			return 0, b.err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// Over is the error of a body from HTTP that went over the cap, nil for
// any other: a parser that wraps its reader's errors in its own still
// gets the cap said plainly.
func Over(body io.Reader) error {
	if b, ok := body.(*capped); ok {
		return b.err
	}
	return nil
}

func (c *Client) tooLarge(n int64) error {
	if n < 0 {
		return &retry.Permanent{Err: fmt.Errorf("%s is over the %d MiB allowed (raise the cap if the repository is yours to trust)", c.what, c.s.MaxBytes>>20)}
	}
	return &retry.Permanent{Err: fmt.Errorf("%s is %d bytes, over the %d MiB allowed (raise the cap if the repository is yours to trust)", c.what, n, c.s.MaxBytes>>20)}
}

// HostStats counts the HTTP requests sent to one host, retries and
// redirects included, and the answers taken from the cache.
type HostStats struct {
	Host     string
	Requests int
	// Errors are the requests that failed on the network or with a
	// status of 400 or above.
	Errors int
	// Whole counts the answers sent whole (200).
	Whole int
	// NotModified counts 304 answers to conditional requests.
	NotModified int
	// FromCache counts the answers taken from the cache without a request.
	FromCache int
}

type hostStats struct {
	requests, errors, whole, notModified, fromCache atomic.Int64
}

func (s *hostStats) add(resp *http.Response, err error) {
	s.requests.Add(1)
	switch {
	case err != nil || resp.StatusCode >= 400:
		s.errors.Add(1)
	case resp.StatusCode == http.StatusOK:
		s.whole.Add(1)
	case resp.StatusCode == http.StatusNotModified:
		s.notModified.Add(1)
	}
}

func (c *Client) host(name string) *hostStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.stats[name]
	if !ok {
		s = &hostStats{}
		c.stats[name] = s
	}
	return s
}

// FromCache counts an answer for host taken from the cache.
func (c *Client) FromCache(host string) { c.host(host).fromCache.Add(1) }

// Stats is what the Client cost each host so far, sorted by host.
func (c *Client) Stats() []HostStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]HostStats, 0, len(c.stats))
	for h, s := range c.stats {
		out = append(out, HostStats{
			Host: h, Requests: int(s.requests.Load()), Errors: int(s.errors.Load()), Whole: int(s.whole.Load()),
			NotModified: int(s.notModified.Load()), FromCache: int(s.fromCache.Load()),
		})
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}
