package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/signature"
)

// cacheOptions are the flags of the registry cache across runs.
type cacheOptions struct {
	Dir  string   // --cache DIR; "" keeps nothing between runs
	TTL  duration // --cache-ttl
	Size size     // --cache-size

	// opened is shared by the copies of the options that serve's runs
	// make, so that a process opens (and prunes) its cache once.
	opened *openedCache

	// sigstore is the TUF repository of the keyless trust root: the zero
	// value is Sigstore's public-good instance; tests serve their own.
	sigstore signature.TUF
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
func (o *cacheOptions) trust() *inspect.Trust {
	dir := inspect.DefaultCacheDir()
	if o.Dir != "" {
		dir = filepath.Join(o.Dir, trustDir)
	}
	return inspect.NewTrust(o.sigstore, dir)
}

type openedCache struct {
	once sync.Once
	c    *cache.Cache
	err  error
}

func newCacheOptions() cacheOptions {
	return cacheOptions{TTL: duration(cache.DefaultTTL), Size: cache.DefaultMaxBytes, opened: &openedCache{}}
}

func (o *cacheOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Dir, "cache", "", "keep registry answers in `DIR` between runs: tag listings for --cache-ttl, then asked again conditionally; manifests and configs by digest; the Sigstore trust root in DIR/sigstore")
	fs.Var(&o.TTL, "cache-ttl", "use a cached tag listing for `DURATION` without asking the registry; 0 asks every time, conditionally")
	fs.Var(&o.Size, "cache-size", "keep the --cache directory under `SIZE` (256MiB, 1GiB); the least recently used answers go first")
}

// registryOptions are the registry client's options for the cache, which
// is opened on first use.
func (o *cacheOptions) registryOptions() ([]registry.Option, error) {
	if o.Dir == "" {
		return nil, nil
	}
	c, err := o.cache()
	if err != nil {
		return nil, err
	}
	return []registry.Option{registry.WithCache(c)}, nil
}

// cache opens --cache once per process.
func (o *cacheOptions) cache() (*cache.Cache, error) {
	if o.opened == nil {
		o.opened = &openedCache{}
	}
	oc := o.opened
	oc.once.Do(func() {
		oc.c, oc.err = cache.Open(o.Dir, cache.WithTTL(time.Duration(o.TTL)), cache.WithMaxBytes(int64(o.Size)))
		if oc.err != nil {
			oc.err = fmt.Errorf("--cache %s: %w", o.Dir, oc.err)
		}
	})
	return oc.c, oc.err
}

// prune brings an opened cache back under its bound: serve does it
// between runs.
func (o *cacheOptions) prune() error {
	if o.opened == nil || o.opened.c == nil {
		return nil
	}
	_, err := o.opened.c.Prune()
	return err
}

// duration is a flag of a length of time, 0 or more.
type duration time.Duration

// String spells 1h rather than 1h0m0s.
func (d *duration) String() string {
	s := time.Duration(*d).String()
	if s != "0s" {
		s = strings.TrimSuffix(s, "0s")
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
	}
	return s
}
func (d *duration) Type() string { return "duration" }

func (d *duration) Set(v string) error {
	t, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || t < 0 {
		return fmt.Errorf("want a duration of 0 or more such as 30m or 2h, got %q", v)
	}
	*d = duration(t)
	return nil
}

// size is a flag of a size in bytes, written 256MiB, 1GiB, 500MB or as a
// number of bytes.
type size int64

func (s *size) String() string {
	for _, u := range sizeUnits[:3] {
		if int64(*s) >= u.n && int64(*s)%u.n == 0 {
			return strconv.FormatInt(int64(*s)/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(*s), 10)
}
func (s *size) Type() string { return "size" }

var sizeUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}

func (s *size) Set(v string) error {
	num, mult := strings.TrimSpace(v), int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return fmt.Errorf("want a size such as 256MiB or 1GiB, got %q", v)
	}
	*s = size(n * mult)
	return nil
}
