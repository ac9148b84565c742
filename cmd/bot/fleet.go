package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"runtime"
	"sync"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/serve"
)

// defaultParallel is how many repositories serve runs at once unless
// --parallel says otherwise. A repository's run mostly waits on git,
// GitHub and registries: on 200 repositories with 20 ms per request
// (BENCHMARKS.md), 8 at once took 16 s where 4 took 26 s and one 90 s,
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
// The keyless trust root, which holds no credential, is shared by all.
type registryPool struct {
	trust *inspect.Trust

	mu      sync.Mutex
	clients map[string]*registry.Client
}

func newRegistryPool(trust *inspect.Trust) *registryPool {
	return &registryPool{trust: trust, clients: map[string]*registry.Client{}}
}

// client returns the run's client for these settings, made with opts on
// first use. key identifies the settings (settingsKey).
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

// flush writes what every client of the run learnt to the cache.
func (p *registryPool) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.clients {
		c.Flush()
	}
}

// stats sums the requests of every client of the run by host.
func (p *registryPool) stats() []registry.HostStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	var all [][]registry.HostStats
	for _, c := range p.clients {
		all = append(all, c.Stats())
	}
	return registry.Sum(all...)
}

// settingsKey identifies what makes two repositories' registry clients
// the same: the config's registries (mirrors, usernames, the variables
// that hold passwords, concurrency, budgets) and the flags. Passwords come
// from the process's environment, the same for every repository, so equal
// settings mean equal credentials; the key holds none of them.
func settingsKey(o commonOptions, cfg *config.Config) string {
	b, _ := json.Marshal(struct { // maps marshal with sorted keys
		Registries  map[string]config.Registry
		Mirrors     map[string]string
		Concurrency int
		MaxRequests int
		Cache       string
	}{orNil(cfg.Registries), orNil(o.Mirrors), o.Concurrency.n, o.MaxRequests.n, o.Cache.Dir})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// orNil makes an empty map nil, which marshals the same as a missing one.
func orNil[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
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

// serveRun makes each serve run: its repositories share registry clients
// and the keyless trust root (a pool per run, so that a host found down or
// a spent budget is forgotten by the next run, and a rotated Sigstore root
// is picked up), each repository's output is written whole
// when it is done, and once all are done the run's cost is logged and the
// cache brought back under its bound.
func serveRun(o *serveOptions, run func(context.Context, *runOptions) (serve.Summary, error), log *slog.Logger) func() serve.Run {
	out, errOut := o.IO.Out, o.IO.ErrOut // lockedWriters (newServer)
	return func() serve.Run {
		pool := newRegistryPool(o.Cache.trust())
		return serve.Run{
			Job: func(ctx context.Context, t serve.Target) (serve.Summary, serve.Status) {
				buf := &repoOutput{w: out}
				defer buf.flush()
				ro := *o
				ro.IO = iostreams{Out: buf, ErrOut: errOut}
				ro.pool = pool
				return serveJob(&ro, run)(ctx, t)
			},
			Done: func() []registry.HostStats {
				pool.flush()
				cost := pool.stats()
				logCost(log, cost)
				if err := o.Cache.prune(); err != nil {
					log.Warn("cannot prune the cache", "err", err)
				}
				return cost
			},
		}
	}
}
