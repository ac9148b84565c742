package cache

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Defaults of Open.
const (
	DefaultMaxBytes = 256 << 20
	DefaultTTL      = time.Hour
)

// version names the layout: a new layout gets a new directory beside it,
// so that two versions of imagebot sharing a directory never misread each
// other's files.
const version = "v1"

// cacheDirTag is the Cache Directory Tagging Specification's marker
// (bford.info/cachedir), which tar, restic, borg and others honour.
const cacheDirTag = "Signature: 8a477f597d28d172789f06886806bc55\n" +
	"# This file is a cache directory tag created by imagebot.\n" +
	"# For information about cache directory tags see https://bford.info/cachedir/\n"

// Cache is a directory of registry answers. It is safe for concurrent use
// by many goroutines and, through atomic renames, by many processes.
type Cache struct {
	root     string // DIR
	dir      string // DIR/v1
	maxBytes int64
	ttl      time.Duration
	now      func() time.Time

	// locks serialize the read-modify-write of a listing within the
	// process, striped by key so that they stay few however many
	// repositories a long-running serve sees; across processes the last
	// rename wins.
	locks [64]sync.Mutex
}

// Option configures a Cache.
type Option func(*Cache)

// WithMaxBytes bounds the directory's size (default 256 MiB); Prune
// removes the least recently used files beyond it.
func WithMaxBytes(n int64) Option {
	return func(c *Cache) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// WithTTL sets how long a listing, and the digests resolved with it, are
// used without asking the registry (default 1h). 0 asks every time, with a
// conditional request where the registry allows it.
func WithTTL(d time.Duration) Option {
	return func(c *Cache) {
		if d >= 0 {
			c.ttl = d
		}
	}
}

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(c *Cache) { c.now = now } }

// Open makes dir a cache (creating it) and prunes it to its size bound.
func Open(dir string, opts ...Option) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("cache: no directory")
	}
	c := &Cache{root: dir, dir: filepath.Join(dir, version), maxBytes: DefaultMaxBytes, ttl: DefaultTTL, now: time.Now}
	for _, opt := range opts {
		opt(c)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	tag := filepath.Join(dir, "CACHEDIR.TAG")
	if _, err := os.Stat(tag); errors.Is(err, os.ErrNotExist) {
		if err := writeAtomic(tag, []byte(cacheDirTag)); err != nil {
			return nil, fmt.Errorf("cache %s: %w", dir, err)
		}
	}
	if _, err := c.Prune(); err != nil {
		return nil, err
	}
	return c, nil
}

// Now is the cache's clock, by which Fresh judges Listing.Checked.
func (c *Cache) Now() time.Time { return c.now() }

// writeAtomic writes data to a temporary file beside path and renames it
// into place: a concurrent reader, in this process or another, sees the
// old file or the new one, never a part. It does not sync: a file torn by
// a crash fails its check on read and counts as a miss.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), tmpPrefix+"*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// tmpPrefix starts the names of files being written; Prune removes old
// ones that a killed process left behind.
const tmpPrefix = ".tmp-"

func (c *Cache) lock(key string) func() {
	h := fnv.New32a()
	h.Write([]byte(key))
	mu := &c.locks[h.Sum32()%uint32(len(c.locks))]
	mu.Lock()
	return mu.Unlock
}
