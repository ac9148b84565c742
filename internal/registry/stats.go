package registry

import (
	"slices"
	"strings"
	"sync"
)

// HostStats counts the HTTP requests sent to one host, retries included.
// Errors are the requests that failed on the network or with a status of
// 400 or above, except 401 (the start of every token exchange).
type HostStats struct {
	Host     string
	Requests int
	Errors   int
}

type stats struct {
	mu    sync.Mutex
	hosts map[string]*HostStats
}

func (s *stats) add(host string, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hosts == nil {
		s.hosts = map[string]*HostStats{}
	}
	h, ok := s.hosts[host]
	if !ok {
		h = &HostStats{Host: host}
		s.hosts[host] = h
	}
	h.Requests++
	if failed {
		h.Errors++
	}
}

func (s *stats) snapshot() []HostStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]HostStats, 0, len(s.hosts))
	for _, h := range s.hosts {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}
