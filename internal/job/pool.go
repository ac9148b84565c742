package job

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/registry"
)

// Pool shares registry clients between the repositories of one serve
// run: a tags listing, a digest, a probe and a token that 100 repositories
// need are asked for once per run, and a host found down or out of budget
// stays so for the rest of the run. Repositories share a client only when
// their registry settings are the same (mirrors, credentials, concurrency,
// budget, cache): credentials from one repository's config never serve
// another's lookups, even on the same host, and a client never sends a
// host credentials meant for another. The keyless trust root, which holds
// no credential, is shared by all.
type Pool struct {
	trust *inspect.Trust
	cache *Cache
	log   *slog.Logger

	mu      sync.Mutex
	clients map[string]*registry.Client
}

// NewPool is a pool for one run of the repositories o is the template of
// (a pool per run, so that a host found down or a spent budget is
// forgotten by the next run, and a rotated Sigstore root is picked up).
func NewPool(o Options) *Pool {
	return &Pool{trust: o.Registry.Cache.trust(), cache: o.Registry.Cache, log: o.logger(), clients: map[string]*registry.Client{}}
}

// client returns the run's client for these settings, made with opts on
// first use. key identifies the settings (settingsKey).
func (p *Pool) client(key string, opts []registry.Option) *registry.Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[key]; ok {
		return c
	}
	c := registry.NewClient(opts...)
	p.clients[key] = c
	return c
}

// Done ends the run once every repository is done: it writes what every
// client learnt to the cache, logs what the run cost the registries, once,
// brings the cache back under its bound, and returns the cost by host.
func (p *Pool) Done() []registry.HostStats {
	p.mu.Lock()
	var all [][]registry.HostStats
	for _, c := range p.clients {
		c.Flush()
		all = append(all, c.Stats())
	}
	p.mu.Unlock()
	cost := registry.Sum(all...)
	logCost(p.log, cost)
	if err := p.cache.prune(); err != nil {
		p.log.Warn("cannot prune the cache", "err", err)
	}
	return cost
}

// settingsKey identifies what makes two repositories' registry clients
// the same: the config's registries (mirrors, usernames, the variables
// that hold passwords, concurrency, budgets) and the flags. Passwords come
// from the process's environment, the same for every repository, so equal
// settings mean equal credentials; the key holds none of them.
func settingsKey(o *Options, cfg *config.Config) string {
	var dir string
	if o.Registry.Cache != nil {
		dir = o.Registry.Cache.Dir
	}
	b, _ := json.Marshal(struct { // maps marshal with sorted keys
		Registries  map[string]config.Registry
		Mirrors     map[string]string
		Concurrency int
		MaxRequests int
		Cache       string
	}{orNil(cfg.Registries), orNil(o.Registry.Mirrors), o.Registry.Concurrency, o.Registry.MaxRequests, dir})
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
