package job

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/signature"
)

// Cache is the registry cache across runs (--cache), the keyless trust
// root and the git packs runs fetched (DIR/git). The directory is opened
// once, on first use, however many commands (serve's runs) share the Cache.
type Cache struct {
	Dir      string // "" keeps nothing between runs
	TTL      time.Duration
	MaxBytes int64
	// Sigstore is the TUF repository of the keyless trust root: the zero
	// value is Sigstore's public-good instance; tests serve their own.
	Sigstore signature.TUF

	once   sync.Once
	opened *cache.Cache
	err    error
}

// trustDir is the subdirectory of --cache DIR that keeps the Sigstore trust
// root. It lies beside the registry answers (DIR/v1), never inside them:
// the cache's Prune walks DIR/v1 only, so its size bound neither counts nor
// removes the trust root (a few TUF files, tens of KiB, which sigstore-go
// writes atomically and replaces itself).
const trustDir = "sigstore"

// trust is a run's keyless trust root, kept under --cache DIR so that what
// restores DIR (actions/cache on GitHub Actions, a volume for serve)
// restores it too, or in the user cache directory without --cache.
func (c *Cache) trust() *inspect.Trust {
	if c == nil {
		return inspect.NewTrust(signature.TUF{}, inspect.DefaultCacheDir())
	}
	dir := inspect.DefaultCacheDir()
	if c.Dir != "" {
		dir = filepath.Join(c.Dir, trustDir)
	}
	return inspect.NewTrust(c.Sigstore, dir)
}

// registryOptions are the registry client's options for the cache, which
// is opened on first use.
func (c *Cache) registryOptions() ([]registry.Option, error) {
	if c == nil || c.Dir == "" {
		return nil, nil
	}
	c.once.Do(func() {
		c.opened, c.err = cache.Open(c.Dir, cache.WithTTL(c.TTL), cache.WithMaxBytes(c.MaxBytes))
		if c.err != nil {
			c.err = fmt.Errorf("--cache %s: %w", c.Dir, c.err)
		}
	})
	if c.err != nil {
		return nil, c.err
	}
	return []registry.Option{registry.WithCache(c.opened)}, nil
}

// gitDir is the subdirectory of --cache DIR that keeps the git packs runs
// fetched (gitops.Options.GitCache), beside the registry's answers: their
// Prune walks DIR/v1 only, and the packs have a bound of their own.
const gitDir = "git"

// git is where a run keeps the packs it fetched and their bound, "" with
// no --cache: the same size as the registry's answers, apart from them.
func (c *Cache) git() (string, int64) {
	if c == nil || c.Dir == "" {
		return "", 0
	}
	return filepath.Join(c.Dir, gitDir), c.MaxBytes
}

// prune brings an opened cache back under its bound, and the git packs of
// all repositories under theirs: serve does it between runs.
func (c *Cache) prune() error {
	if dir, bound := c.git(); dir != "" && bound > 0 {
		if err := gitops.PruneGitCache(dir, bound); err != nil {
			return err
		}
	}
	if c == nil || c.opened == nil {
		return nil
	}
	_, err := c.opened.Prune()
	return err
}
