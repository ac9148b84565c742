package registry

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/registry/cache"
)

// Tags lists every tag of a repository, following the registry's
// pagination to the end. A listing that loops (a page linking to one
// already read, or a page of tags all listed before) or runs past
// Limits.Pages fails rather than decide on a partial list.
func (c *Client) Tags(ctx context.Context, repo name.Repository) ([]string, error) {
	rt, err := c.route(repo)
	if err != nil {
		return nil, fmt.Errorf("list tags %s: %w", imagename.String(repo), err)
	}
	tags, err := c.tags.get(ctx, rt.key(), func(ctx context.Context) ([]string, error) {
		if c.o.cache != nil {
			return c.cachedTags(ctx, rt)
		}
		tags, _, _, err := c.listTags(ctx, rt, nil)
		c.log.Debug("listed tags", "repo", imagename.String(repo), "from", rt.key(), "tags", len(tags), "error", err)
		return tags, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tags %s: %w", imagename.String(repo), err)
	}
	return slices.Clone(tags), nil
}

// The tags listing is ours rather than go-containerregistry's remote.List,
// which reads any page whole and follows Link headers for ever; the
// transport under it (authentication included) is still
// go-containerregistry's.
//
// prev is the listing as a cache holds it: a page asked for again at the
// same URL is asked conditionally when it came with validators, and a 304
// stands for the page as stored. It returns the tags, the pages as read,
// and whether every page was confirmed unchanged.
func (c *Client) listTags(ctx context.Context, rt route, prev []cache.Page) ([]string, []cache.Page, bool, error) {
	h := rt.h
	tr, err := h.authTransport(ctx, rt.path)
	if err != nil {
		return nil, nil, false, err
	}
	client := &http.Client{Transport: tr}
	stored := map[string]cache.Page{}
	for _, p := range prev {
		stored[p.URL] = p
	}
	next := &url.URL{Scheme: h.scheme, Host: h.name, Path: "/v2/" + rt.path + "/tags/list"}
	read := map[string]bool{}
	seen := map[string]bool{}
	var tags []string
	var pages []cache.Page
	unchanged := len(prev) > 0
	for page := 1; next != nil; page++ {
		if page > c.o.limits.Pages {
			return nil, nil, false, fmt.Errorf("tags listing longer than %d pages: stopped (Limits.Pages)", c.o.limits.Pages)
		}
		if read[next.String()] {
			return nil, nil, false, fmt.Errorf("tags listing loops: page %d links back to %s", page, redact(next))
		}
		read[next.String()] = true
		old, had := stored[next.String()]
		p, err := fetchPage(ctx, client, next, old)
		if err != nil {
			return nil, nil, false, err
		}
		if p.notModified && had {
			p.tags, p.link = old.Tags, old.Link
			p.etag, p.lastModified = cmp.Or(p.etag, old.ETag), cmp.Or(p.lastModified, old.LastModified)
		} else {
			unchanged = false
		}
		pages = append(pages, cache.Page{URL: next.String(), ETag: p.etag, LastModified: p.lastModified, Link: p.link, Tags: p.tags})
		fresh := 0
		for _, t := range p.tags {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
				fresh++
			}
		}
		if page > 1 && fresh == 0 {
			return nil, nil, false, fmt.Errorf("tags listing loops: page %d lists no tag that earlier pages did not (does the registry ignore ?last=?)", page)
		}
		if next, err = nextPage(next, p.link, h); err != nil {
			return nil, nil, false, err
		}
	}
	return tags, pages, unchanged && len(pages) == len(prev), nil
}

// tagsPage is one page of a tags listing.
type tagsPage struct {
	tags         []string
	link         string // the Link header, "" on the last page
	etag         string
	lastModified string // only when it can vouch for the page (see validLastModified)
	notModified  bool
}

// fetchPage reads one page. With validators from a stored copy of the page
// (its ETag, its Last-Modified) the request is conditional: a registry
// that answers 304 says the stored page is still the page.
func fetchPage(ctx context.Context, client *http.Client, u *url.URL, stored cache.Page) (tagsPage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tagsPage{}, err
	}
	req.Header.Set("Accept", "application/json")
	if stored.ETag != "" {
		req.Header.Set("If-None-Match", stored.ETag)
	}
	if stored.LastModified != "" {
		req.Header.Set("If-Modified-Since", stored.LastModified)
	}
	resp, err := client.Do(req)
	if err != nil {
		return tagsPage{}, err
	}
	defer resp.Body.Close()
	p := tagsPage{link: resp.Header.Get("Link"), etag: resp.Header.Get("ETag"), lastModified: validLastModified(resp.Header)}
	if resp.StatusCode == http.StatusNotModified && (stored.ETag != "" || stored.LastModified != "") {
		p.notModified = true
		return p, nil
	}
	if err := transport.CheckError(resp, http.StatusOK); err != nil {
		return tagsPage{}, err
	}
	// The attempt caps the body at Limits.PageBytes.
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return tagsPage{}, err
	}
	var list struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return tagsPage{}, fmt.Errorf("tags page %s: %w", redact(u), err)
	}
	p.tags = list.Tags
	return p, nil
}

// validLastModified returns the Last-Modified of an answer only when it
// can vouch for the page later: it has a resolution of one second, so a
// tag pushed in the second the page was sent, after it was read, would
// carry the same time and a conditional request would miss it. A
// Last-Modified at least a second before the answer's Date cannot be in
// that second (RFC 9110, 8.8.2.2).
func validLastModified(h http.Header) string {
	lm, err := http.ParseTime(h.Get("Last-Modified"))
	if err != nil {
		return ""
	}
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil || !lm.Before(date) {
		return ""
	}
	return h.Get("Last-Modified")
}

// nextPage resolves the rel="next" target of a Link header
// (`</v2/x/tags/list?last=b&n=2>; rel="next"`) against the page that sent
// it. An https listing never continues over http; go-containerregistry's
// transport sends the registry's credentials to the registry's host only.
func nextPage(cur *url.URL, link string, h *host) (*url.URL, error) {
	target := ""
	for part := range strings.SplitSeq(link, ",") {
		ref, params, ok := strings.Cut(part, ";")
		ref = strings.TrimSpace(ref)
		if !ok || !strings.HasPrefix(ref, "<") || !strings.HasSuffix(ref, ">") {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "rel") && slices.Contains(strings.Fields(strings.Trim(v, `"`)), "next") {
				target = ref[1 : len(ref)-1]
			}
		}
	}
	if target == "" {
		return nil, nil
	}
	u, err := cur.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("tags page link %q: %w", target, err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || (h.scheme == "https" && u.Scheme != "https") {
		return nil, fmt.Errorf("tags page links to %s from a registry spoken to over %s: not followed", redact(u), h.scheme)
	}
	return u, nil
}
