package chartrepo

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
)

// HostStats counts the HTTP requests sent to one repository host,
// retries and redirects included.
type HostStats struct {
	Host     string
	Requests int
	// Errors are the requests that failed on the network or with a
	// status of 400 or above.
	Errors int
	// Indexes counts full answers (200): indexes sent whole.
	Indexes int
	// NotModified counts 304 answers to conditional requests.
	NotModified int
	// FromCache counts the indexes taken from the cache (WithCache)
	// without a request.
	FromCache int
}

type hostStats struct {
	requests, errors, indexes, notModified, fromCache atomic.Int64
}

func (s *hostStats) add(resp *http.Response, err error) {
	s.requests.Add(1)
	switch {
	case err != nil || resp.StatusCode >= 400:
		s.errors.Add(1)
	case resp.StatusCode == http.StatusOK:
		s.indexes.Add(1)
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

// Stats returns the requests sent so far per host, and the indexes taken
// from the cache, sorted by host.
func (c *Client) Stats() []HostStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]HostStats, 0, len(c.stats))
	for h, s := range c.stats {
		out = append(out, HostStats{
			Host: h, Requests: int(s.requests.Load()), Errors: int(s.errors.Load()), Indexes: int(s.indexes.Load()),
			NotModified: int(s.notModified.Load()), FromCache: int(s.fromCache.Load()),
		})
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}
