package registry

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
)

// HostStats counts the HTTP requests sent to one registry host, retries
// included, by kind. Token requests count for the registry that asked for
// the token, wherever its token service lives (auth.docker.io counts for
// index.docker.io), and a redirected blob for the registry that redirected.
// Errors are the requests that failed on the network or with a status of
// 400 or above, except 401 (the start of every token exchange).
type HostStats struct {
	Host     string
	Requests int
	Errors   int
	// NotModified counts 304 answers to conditional requests.
	NotModified int
	// FromCache counts the answers taken from the cache (WithCache)
	// instead of a request: listings, digests, manifests and blobs.
	FromCache int

	Ping         int // GET /v2/
	Token        int
	Tags         int // pages of tags listings
	ManifestHead int
	ManifestGet  int
	Blob         int
	Referrers    int
	Other        int
}

// Kinds names the kinds of request HostStats counts, as ByKind, logs and
// metrics spell them, in the order they are shown.
var Kinds = []string{"ping", "token", "tags", "manifestHead", "manifestGet", "blob", "referrers", "other"}

// ByKind returns the requests by kind, with every name of Kinds.
func (s HostStats) ByKind() map[string]int {
	n := []int{s.Ping, s.Token, s.Tags, s.ManifestHead, s.ManifestGet, s.Blob, s.Referrers, s.Other}
	out := make(map[string]int, len(Kinds))
	for i, k := range Kinds {
		out[k] = n[i]
	}
	return out
}

// plus returns s with the counts of t added: two Clients' requests to one
// host, or two runs'.
func (s HostStats) plus(t HostStats) HostStats {
	s.Requests += t.Requests
	s.Errors += t.Errors
	s.NotModified += t.NotModified
	s.FromCache += t.FromCache
	s.Ping += t.Ping
	s.Token += t.Token
	s.Tags += t.Tags
	s.ManifestHead += t.ManifestHead
	s.ManifestGet += t.ManifestGet
	s.Blob += t.Blob
	s.Referrers += t.Referrers
	s.Other += t.Other
	return s
}

// Sum adds up lists of HostStats by host, sorted by host.
func Sum(lists ...[]HostStats) []HostStats {
	by := map[string]HostStats{}
	for _, l := range lists {
		for _, s := range l {
			t, ok := by[s.Host]
			if !ok {
				t = HostStats{Host: s.Host}
			}
			by[s.Host] = t.plus(s)
		}
	}
	out := make([]HostStats, 0, len(by))
	for _, s := range by {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}

type kind int

const (
	kindPing kind = iota
	kindToken
	kindTags
	kindManifestHead
	kindManifestGet
	kindBlob
	kindReferrers
	kindOther
	numKinds
)

// hostStats is updated on every request, so it is lock-free.
type hostStats struct {
	requests, errors, notModified atomic.Int64
	fromCache                     atomic.Int64
	kinds                         [numKinds]atomic.Int64
}

func (s *hostStats) add(k kind, status int, failed bool) {
	s.requests.Add(1)
	s.kinds[k].Add(1)
	if failed {
		s.errors.Add(1)
	}
	if status == http.StatusNotModified {
		s.notModified.Add(1)
	}
}

func (s *hostStats) snapshot(host string) HostStats {
	k := func(i kind) int { return int(s.kinds[i].Load()) }
	return HostStats{
		Host: host, Requests: int(s.requests.Load()), Errors: int(s.errors.Load()),
		NotModified: int(s.notModified.Load()), FromCache: int(s.fromCache.Load()),
		Ping: k(kindPing), Token: k(kindToken), Tags: k(kindTags),
		ManifestHead: k(kindManifestHead), ManifestGet: k(kindManifestGet),
		Blob: k(kindBlob), Referrers: k(kindReferrers), Other: k(kindOther),
	}
}

// Stats returns the requests sent so far per contacted host that was sent
// any or answered from the cache, sorted by host.
func (c *Client) Stats() []HostStats {
	c.mu.Lock()
	hosts := make([]*host, 0, len(c.hosts))
	for _, h := range c.hosts {
		hosts = append(hosts, h)
	}
	c.mu.Unlock()
	out := make([]HostStats, 0, len(hosts))
	for _, h := range hosts {
		if s := h.stats.snapshot(h.name); s.Requests > 0 || s.FromCache > 0 {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// kindOf classifies a request for Stats. A redirect is of the kind of the
// request that was redirected; a request to the token service is a token
// request whatever its path (Quay's realm is /v2/auth).
func kindOf(req *http.Request, realm string) kind {
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	u := req.URL
	if realm != "" && strings.HasPrefix(u.Scheme+"://"+u.Host+u.Path, realm) {
		return kindToken
	}
	p := u.Path
	switch {
	case p == "/v2/" || p == "/v2":
		return kindPing
	case strings.HasSuffix(p, "/tags/list"):
		return kindTags
	case strings.Contains(p, "/manifests/"):
		if req.Method == http.MethodHead {
			return kindManifestHead
		}
		return kindManifestGet
	case strings.Contains(p, "/blobs/"):
		return kindBlob
	case strings.Contains(p, "/referrers/"):
		return kindReferrers
	case u.Query().Has("service") || u.Query().Has("scope"):
		return kindToken // a realm learnt from a later challenge
	}
	return kindOther
}
