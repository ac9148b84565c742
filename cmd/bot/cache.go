package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/signature"
)

// cacheOptions are the flags of the registry cache across runs.
type cacheOptions struct {
	Dir  string   // --cache DIR; "" keeps nothing between runs
	TTL  duration // --cache-ttl
	Size size     // --cache-size

	// sigstore is the TUF repository of the keyless trust root: the zero
	// value is Sigstore's public-good instance; tests serve their own.
	sigstore signature.TUF
}

func newCacheOptions() cacheOptions {
	return cacheOptions{TTL: duration(cache.DefaultTTL), Size: cache.DefaultMaxBytes}
}

func (o *cacheOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Dir, "cache", "", "keep registry answers in `DIR` between runs: tag listings for --cache-ttl, then asked again conditionally; manifests and configs by digest; the Sigstore trust root in DIR/sigstore; the git packs runs fetched in DIR/git")
	fs.Var(&o.TTL, "cache-ttl", "use a cached tag listing for `DURATION` without asking the registry; 0 asks every time, conditionally")
	fs.Var(&o.Size, "cache-size", "keep the --cache directory's registry answers under `SIZE` (256MiB, 1GiB), the least recently used going first, and its git packs apart under the same size")
}

// job is the cache for a command, opened on first use: serve's runs share
// the one its options make.
func (o *cacheOptions) job() *job.Cache {
	return &job.Cache{Dir: o.Dir, TTL: time.Duration(o.TTL), MaxBytes: int64(o.Size), Sigstore: o.sigstore}
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
