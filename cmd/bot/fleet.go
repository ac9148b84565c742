package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/registry"
)

// defaultParallel is how many repositories serve runs at once unless
// --parallel says otherwise. A repository's run mostly waits on git,
// GitHub and registries: on 200 repositories with 20 ms per request
// (BENCHMARKS.md), 8 at once took 35 s where 4 took 52 s and one 199 s,
// on 2 CPUs. Beyond 8, a GitHub token's concurrent requests and the
// memory of the trees in flight grow for little: 8, or 4 on one CPU.
func defaultParallel() int { return min(8, 4*runtime.GOMAXPROCS(0)) }

// registryPool shares registry clients between the repositories of one
// serve run: a tags listing, a digest, a probe and a token that 100
// repositories need are asked for once per run, and a host found down or
// out of budget stays so for the rest of the run. Repositories share a
// client only when their registry settings are the same (mirrors,
// credentials, concurrency, budget, cache): credentials from one
// repository's config never serve another's lookups, even on the same
// host, and a client never sends a host credentials meant for another.
type registryPool struct {
	mu      sync.Mutex
	clients map[string]*registry.Client
}

func newRegistryPool() *registryPool { return &registryPool{clients: map[string]*registry.Client{}} }

// client returns the run's client for these settings, made with opts on
// first use. key identifies the settings (see settingsKey).
func (p *registryPool) client(key string, opts []registry.Option) *registry.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[key]; ok {
		return c
	}
	c := registry.NewClient(opts...)
	p.clients[key] = c
	return c
}

// stats sums the requests of every client of the run by host.
func (p *registryPool) stats() []registry.HostStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	var all [][]registry.HostStats
	for _, c := range p.clients {
		all = append(all, c.Stats())
	}
	return sumStats(all...)
}

// sumStats adds per-host stats, sorted by host.
func sumStats(lists ...[]registry.HostStats) []registry.HostStats {
	by := map[string]*registry.HostStats{}
	for _, l := range lists {
		for _, s := range l {
			t := by[s.Host]
			if t == nil {
				t = &registry.HostStats{Host: s.Host}
				by[s.Host] = t
			}
			t.Requests += s.Requests
			t.Errors += s.Errors
			t.NotModified += s.NotModified
			t.FromCache += s.FromCache
			t.Ping += s.Ping
			t.Token += s.Token
			t.Tags += s.Tags
			t.ManifestHead += s.ManifestHead
			t.ManifestGet += s.ManifestGet
			t.Blob += s.Blob
			t.Referrers += s.Referrers
			t.Other += s.Other
		}
	}
	out := make([]registry.HostStats, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b registry.HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// settings is what makes two repositories' registry clients the same.
// Passwords enter only as a hash, and the key never leaves the process.
type settings struct {
	Mirrors     map[string]string
	Credentials map[string][2]string // host -> username, sha256 of the password
	Concurrency int
	MaxRequests int
	Cache       string
}

func (s settings) key() string {
	b, _ := json.Marshal(s) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func credentialsKey(creds map[string]registry.Credentials) map[string][2]string {
	out := make(map[string][2]string, len(creds))
	for h, c := range creds {
		sum := sha256.Sum256([]byte(c.Password))
		out[h] = [2]string{c.Username, hex.EncodeToString(sum[:])}
	}
	return out
}

// lockedWriter lets the repositories of a run write to one stream: each
// repository's output is buffered and written in one piece when its run
// ends, so that two repositories' lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// repoOutput is one repository's buffered stdout, written to w on flush.
type repoOutput struct {
	bytes.Buffer
	w io.Writer
}

func (r *repoOutput) flush() {
	if r.Len() > 0 {
		r.w.Write(r.Bytes())
		r.Reset()
	}
}
