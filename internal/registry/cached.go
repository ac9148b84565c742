package registry

import (
	"context"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// cachedTags lists a repository through the cache (WithCache): a fresh
// listing costs nothing; a stale one is asked again page by page with its
// validators, and a registry that answers 304 costs one request a page;
// anything else is listed afresh. A listing read from the registry, fully
// or in part, is stored with the time the reading began, so that it
// expires no later than the registry's state it shows.
func (c *Client) cachedTags(ctx context.Context, rt route) ([]string, error) {
	cc := c.o.cache
	prev, ok := cc.Listing(rt.h.name, rt.path)
	if ok && cc.Fresh(prev) {
		rt.h.stats.fromCache.Add(1)
		c.log.Debug("listed tags", "from", rt.key(), "cache", "fresh")
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
	l := &cache.Listing{Host: rt.h.name, Repo: rt.path, Checked: checked, Pages: pages}
	if err := cc.PutListing(l); err != nil {
		c.log.Debug("listing not cached", "from", rt.key(), "error", err)
	}
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
	if c.o.cache == nil {
		return "", false
	}
	d, ok := c.o.cache.Digest(rt.h.name, rt.path, tag)
	if ok {
		rt.h.stats.fromCache.Add(1)
	}
	return d, ok
}

// keepDigest records a resolution for as long as the listing stays fresh.
func (c *Client) keepDigest(rt route, tag, digest string) {
	if c.o.cache == nil {
		return
	}
	if err := c.o.cache.PutDigest(rt.h.name, rt.path, tag, digest); err != nil {
		c.log.Debug("digest not cached", "from", rt.key(), "tag", tag, "error", err)
	}
}
