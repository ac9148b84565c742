package registry

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// listings are the cached listings a Client read or refreshed in its run,
// with the digests it resolved while they are fresh: the run reads each
// from disk once, and Flush writes each it changed once, digests included,
// rather than a file write per digest on the lookups' path.
type listings struct {
	mu    sync.Mutex
	by    map[string]*cache.Listing // by route key
	dirty map[string]bool
	// unconfirmed are the digests this run answered from the cache, by
	// route key + ":" + tag, until Confirm asks the registry: the cache is
	// a file anyone who can write its directory may edit, so it is a
	// hint, never the authority for a digest written into a manifest.
	unconfirmed map[string]string
}

func (l *listings) get(key string) *cache.Listing {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[key]
}

// adopt keeps li as the run's listing of key unless the run has one
// already, and returns the one kept.
func (l *listings) adopt(key string, li *cache.Listing) *cache.Listing {
	l.mu.Lock()
	defer l.mu.Unlock()
	if have := l.by[key]; have != nil {
		return have
	}
	if l.by == nil {
		l.by, l.dirty = map[string]*cache.Listing{}, map[string]bool{}
	}
	l.by[key] = li
	return li
}

func (l *listings) put(key string, li *cache.Listing, dirty bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by, l.dirty = map[string]*cache.Listing{}, map[string]bool{}
	}
	l.by[key] = li
	l.dirty[key] = l.dirty[key] || dirty
}

// cachedTags lists a repository through the cache (WithCache): a fresh
// listing costs nothing; a stale one is asked again page by page with its
// validators, and a registry that answers 304 costs one request a page;
// anything else is listed afresh. A listing read from the registry, fully
// or in part, is kept with the time the reading began, so that it expires
// no later than the registry's state it shows; Flush writes it.
func (c *Client) cachedTags(ctx context.Context, rt route) ([]string, error) {
	cc := c.o.cache
	prev, ok := cc.Listing(rt.h.name, rt.path)
	if _, stale := c.revalidate.Load(rt.key()); ok && cc.Fresh(prev) && !stale {
		rt.h.stats.fromCache.Add(1)
		c.log.Debug("listed tags", "from", rt.key(), "cache", "fresh")
		c.listed.put(rt.key(), prev, false)
		return tagsOf(prev.Pages), nil
	}
	var stored []cache.Page
	if ok {
		stored = prev.Pages
	}
	checked := cc.Now()
	tags, pages, unchanged, err := c.listTags(ctx, rt, stored)
	c.log.Debug("listed tags", "from", rt.key(), "tags", len(tags), "revalidated", ok, "unchanged", unchanged, "error", err)
	if err != nil {
		return nil, err
	}
	// The digests of the old listing are dropped even when it is
	// unchanged: a tag can be re-pushed without the listing changing.
	c.listed.put(rt.key(), &cache.Listing{Host: rt.h.name, Repo: rt.path, Checked: checked, Pages: pages}, true)
	return tags, nil
}

// tagsOf is the tags of stored pages, each once, in order.
func tagsOf(pages []cache.Page) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pages {
		for _, t := range p.Tags {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// cachedDigest returns what tag resolved to while its repository's
// listing is fresh.
func (c *Client) cachedDigest(rt route, tag string) (string, bool) {
	cc := c.o.cache
	if cc == nil {
		return "", false
	}
	l := c.listed.get(rt.key())
	if l == nil {
		// Not listed in this run (a promotion's digest, a listing that
		// failed): read the stored listing once for all its tags, not a
		// file read per tag.
		stored, found := cc.Listing(rt.h.name, rt.path)
		if !found {
			return "", false
		}
		l = c.listed.adopt(rt.key(), stored)
	}
	c.listed.mu.Lock()
	d, ok := l.Digests[tag]
	c.listed.mu.Unlock()
	if ok = ok && cc.Fresh(l); ok {
		rt.h.stats.fromCache.Add(1)
		c.listed.mu.Lock()
		if c.listed.unconfirmed == nil {
			c.listed.unconfirmed = map[string]string{}
		}
		c.listed.unconfirmed[rt.key()+":"+tag] = d
		c.listed.mu.Unlock()
	}
	return d, ok
}

// ErrCacheMismatch marks a digest the cache gave for a tag that the
// registry does not serve for it: the cache was edited, or the tag moved
// since (a fresh listing never vouches for a digest beyond its TTL).
var ErrCacheMismatch = errors.New("the cache's digest is not the registry's")

// Confirm checks, before digest is written into a file as what ref
// resolves to, that the registry serves it for ref now, when this Client
// answered ref from the cache (WithCache). A digest the Client read from
// the registry in this run costs nothing; one from the cache costs one
// HEAD, once. On a mismatch the run's listing takes the registry's digest
// (Flush writes it over the cache's), and the error wraps
// ErrCacheMismatch.
func (c *Client) Confirm(ctx context.Context, ref name.Tag, digest string) error {
	rt, err := c.routeRef(ref)
	if err != nil {
		return fmt.Errorf("confirm digest %s: %w", refString(ref), err)
	}
	tag := ref.TagStr()
	key := rt.key() + ":" + tag
	c.listed.mu.Lock()
	cached, ok := c.listed.unconfirmed[key]
	c.listed.mu.Unlock()
	if !ok || cached != digest {
		return nil // not the cache's word
	}
	got, err := c.fetchDigest(ctx, rt, tag)
	if err != nil {
		return fmt.Errorf("confirm digest %s@%s from the cache: %w", refString(ref), digest, err)
	}
	c.listed.mu.Lock()
	delete(c.listed.unconfirmed, key)
	c.listed.mu.Unlock()
	if got != digest {
		c.keepDigest(rt, tag, got)
		c.log.Warn("cached digest differs from the registry's", "ref", refString(ref), "cache", digest, "registry", got)
		return fmt.Errorf("%w: %s resolves to %s at the registry, the cache said %s; nothing written", ErrCacheMismatch, refString(ref), got, digest)
	}
	return nil
}

// keepDigest records a resolution for as long as the listing stays fresh:
// in the run's listing, written by Flush, or else straight in the cache.
func (c *Client) keepDigest(rt route, tag, digest string) {
	cc := c.o.cache
	if cc == nil {
		return
	}
	if l := c.listed.get(rt.key()); l != nil {
		if !cc.Fresh(l) {
			return // a digest never outlives its listing
		}
		c.listed.mu.Lock()
		defer c.listed.mu.Unlock()
		if l.Digests[tag] != digest {
			if l.Digests == nil {
				l.Digests = map[string]string{}
			}
			l.Digests[tag] = digest
			c.listed.dirty[rt.key()] = true
		}
		return
	}
	if err := cc.PutDigest(rt.h.name, rt.path, tag, digest); err != nil {
		c.log.Debug("digest not cached", "from", rt.key(), "tag", tag, "error", err)
	}
}

// flushers bounds the listings Flush writes at once: a write is a file
// created and renamed, which a slow disk makes worth overlapping.
const flushers = 8

// Flush writes to the cache (WithCache) what the Client learnt since it
// was made or last flushed: the listings it refreshed and the digests it
// resolved, and the limits of token services it learnt. Call it when a
// run is done. A Client never flushed answers as well; the next run only
// asks the registry again. Without a cache it does nothing.
func (c *Client) Flush() {
	cc := c.o.cache
	if cc == nil {
		return
	}
	c.listed.mu.Lock()
	var todo []*cache.Listing
	for key, dirty := range c.listed.dirty {
		if dirty {
			// A copy: lookups still going may add digests meanwhile.
			l := *c.listed.by[key]
			l.Digests = maps.Clone(l.Digests)
			todo = append(todo, &l)
			c.listed.dirty[key] = false
		}
	}
	c.listed.mu.Unlock()
	c.mu.Lock()
	hosts := slices.Collect(maps.Values(c.hosts))
	c.mu.Unlock()
	for _, h := range hosts {
		h.remember(cc)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, flushers)
	for _, l := range todo {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := cc.PutListing(l); err != nil {
				c.log.Debug("listing not cached", "host", l.Host, "repo", l.Repo, "error", err)
			}
		})
	}
	wg.Wait()
}

// Revalidate makes this Client's next listing of repo ask the registry
// (conditionally) even while the cached listing is fresh, and forgets the
// digests kept with it: a push notification says the repository changed
// within the cache's TTL. Call it before the Client lists repo.
func (c *Client) Revalidate(repo name.Repository) {
	if rt, err := c.route(repo); err == nil {
		c.revalidate.Store(rt.key(), true)
	}
}
