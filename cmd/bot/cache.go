package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/registry/cache"
)

// costOptions are the flags that bound what a run costs the registries:
// the cache across runs and the request budget.
type costOptions struct {
	Cache       string        // --cache DIR; "" keeps nothing between runs
	CacheTTL    time.Duration // --cache-ttl
	CacheSize   string        // --cache-size, e.g. 256MiB
	MaxRequests int           // --max-requests, per host and run; 0 is no budget

	// opened is shared by the copies of the options that serve's runs
	// make, so that a process opens (and prunes) its cache once.
	opened *openedCache
}

type openedCache struct {
	once sync.Once
	c    *cache.Cache
	err  error
}

// flagSet is what both the standard library's and pflag's flag sets offer.
type flagSet interface {
	StringVar(p *string, name, value, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
	IntVar(p *int, name string, value int, usage string)
}

func (o *costOptions) bind(fs flagSet) {
	fs.StringVar(&o.Cache, "cache", "", "keep registry answers in `DIR` between runs: tag listings for --cache-ttl, then revalidated; manifests and configs by digest")
	fs.DurationVar(&o.CacheTTL, "cache-ttl", cache.DefaultTTL, "how long a cached tag listing is used without asking the registry (0: ask every time, conditionally)")
	fs.StringVar(&o.CacheSize, "cache-size", "256MiB", "bound of the --cache directory; the least recently used answers go first")
	fs.IntVar(&o.MaxRequests, "max-requests", 0, "at most `N` requests per registry host and run; the images left are reported as \"not looked up: budget\" (0: no budget)")
	o.opened = &openedCache{}
}

// check validates the values the flag types cannot.
func (o *costOptions) check() error {
	if o.CacheTTL < 0 {
		return fmt.Errorf("--cache-ttl %s: want 0 or more", o.CacheTTL)
	}
	if _, err := parseSize(o.CacheSize); err != nil {
		return fmt.Errorf("--cache-size: %w", err)
	}
	if o.MaxRequests < 0 {
		return fmt.Errorf("--max-requests %d: want 0 (no budget) or more", o.MaxRequests)
	}
	return nil
}

// registryOptions are the registry client's options these flags ask for,
// the cache opened on first use.
func (o *costOptions) registryOptions() ([]registry.Option, error) {
	opts := []registry.Option{registry.WithMaxRequests(o.MaxRequests)}
	if o.Cache == "" {
		return opts, nil
	}
	c, err := o.cache()
	if err != nil {
		return nil, err
	}
	return append(opts, registry.WithCache(c)), nil
}

// cache opens --cache once per process.
func (o *costOptions) cache() (*cache.Cache, error) {
	if o.opened == nil {
		o.opened = &openedCache{}
	}
	oc := o.opened
	oc.once.Do(func() {
		size, err := parseSize(o.CacheSize)
		if err != nil {
			oc.err = fmt.Errorf("--cache-size: %w", err)
			return
		}
		oc.c, oc.err = cache.Open(o.Cache, cache.WithTTL(o.CacheTTL), cache.WithMaxBytes(size))
		if oc.err != nil {
			oc.err = fmt.Errorf("--cache %s: %w", o.Cache, oc.err)
		}
	})
	return oc.c, oc.err
}

// parseSize reads a size such as 256MiB, 1GiB, 500MB or a byte count.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if v, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(v), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("want a size such as 256MiB or 1GiB, got %q", s)
	}
	return n * mult, nil
}
