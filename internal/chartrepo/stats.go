package chartrepo

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

// Stats returns the requests sent so far per host, and the indexes taken
// from the cache, sorted by host.
func (c *Client) Stats() []HostStats {
	stats := c.f.Stats()
	out := make([]HostStats, 0, len(stats))
	for _, s := range stats {
		out = append(out, HostStats{Host: s.Host, Requests: s.Requests, Errors: s.Errors, Indexes: s.Whole, NotModified: s.NotModified, FromCache: s.FromCache})
	}
	return out
}
