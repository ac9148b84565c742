package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Tags lists every tag of a repository ("docker.io/library/nginx"),
// following the registry's pagination to the end. A listing that loops
// (a page linking to one already read, or a page of tags all listed
// before) or runs past Limits.Pages fails rather than decide on a partial
// list.
func (c *Client) Tags(ctx context.Context, repo string) ([]string, error) {
	rt, err := c.route(repo)
	if err != nil {
		return nil, fmt.Errorf("list tags %s: %w", repo, err)
	}
	tags, err := c.tags.get(ctx, rt.key(), func(ctx context.Context) ([]string, error) {
		tags, err := c.listTags(ctx, rt)
		c.log.Debug("listed tags", "repo", repo, "from", rt.key(), "tags", len(tags), "error", err)
		return tags, err
	})
	if err != nil {
		return nil, fmt.Errorf("list tags %s: %w", repo, err)
	}
	return slices.Clone(tags), nil
}

// The tags listing is ours rather than go-containerregistry's remote.List,
// which reads any page whole and follows Link headers for ever; the
// transport under it (authentication included) is still
// go-containerregistry's.
func (c *Client) listTags(ctx context.Context, rt route) ([]string, error) {
	h := rt.h
	tr, err := h.transportFor(ctx, rt.path)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: tr}
	next := &url.URL{Scheme: h.scheme, Host: h.name, Path: "/v2/" + rt.path + "/tags/list"}
	read := map[string]bool{}
	seen := map[string]bool{}
	var tags []string
	for page := 1; next != nil; page++ {
		if page > c.o.limits.Pages {
			return nil, fmt.Errorf("tags listing longer than %d pages: stopped (Limits.Pages)", c.o.limits.Pages)
		}
		if read[next.String()] {
			return nil, fmt.Errorf("tags listing loops: page %d links back to %s", page, redact(next))
		}
		read[next.String()] = true
		p, err := fetchPage(ctx, client, next, "")
		if err != nil {
			return nil, err
		}
		fresh := 0
		for _, t := range p.tags {
			if !seen[t] {
				seen[t] = true
				tags = append(tags, t)
				fresh++
			}
		}
		if page > 1 && fresh == 0 {
			return nil, fmt.Errorf("tags listing loops: page %d lists no tag that earlier pages did not (does the registry ignore ?last=?)", page)
		}
		if next, err = nextPage(next, p.link, h); err != nil {
			return nil, err
		}
	}
	return tags, nil
}

// tagsPage is one page of a tags listing.
type tagsPage struct {
	tags        []string
	link        string // the Link header, "" on the last page
	etag        string
	notModified bool
}

// fetchPage reads one page. ifNoneMatch, when set, makes the request
// conditional: a registry that answers 304 says that the page an ETag was
// given for is unchanged, which is what a cache across runs needs.
func fetchPage(ctx context.Context, client *http.Client, u *url.URL, ifNoneMatch string) (tagsPage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tagsPage{}, err
	}
	req.Header.Set("Accept", "application/json")
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	resp, err := client.Do(req)
	if err != nil {
		return tagsPage{}, err
	}
	defer resp.Body.Close()
	p := tagsPage{link: resp.Header.Get("Link"), etag: resp.Header.Get("ETag")}
	if resp.StatusCode == http.StatusNotModified && ifNoneMatch != "" {
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
