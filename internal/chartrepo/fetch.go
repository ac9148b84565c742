package chartrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"

	"github.com/imagebot/imagebot/internal/fetch"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/secret"
)

// load reads the index of the repository at u: from the cache while it is
// fresh, else from the repository, conditionally when the cache holds it.
// u's credentials, if any, go only into the request's basic auth.
func (c *Client) load(ctx context.Context, u *url.URL, only map[string]bool) (*index, error) {
	repo := secret.Redact(u)
	ctx, cancel := c.f.Deadline(ctx)
	defer cancel()
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return nil, c.fail(ctx, repo, 0, ctx.Err())
	}
	target := *u
	target.User = nil
	target.Path = path.Join(u.Path, "index.yaml")
	indexURL := target.String()

	// An index read with the credentials a URL was written with is for
	// that URL alone: the cache, which answers whoever asks for the index
	// without a request, never holds it.
	private := u.User != nil
	var st *held
	if !private {
		st = c.cached(indexURL, only)
	}
	var doc *cache.Document
	if st != nil {
		if c.o.Cache.FreshDocument(st.doc) {
			c.f.FromCache(u.Host)
			return st.idx, nil
		}
		doc = st.doc
	}
	resp, err := c.get(ctx, u, &target, doc)
	if err != nil {
		return nil, c.fail(ctx, repo, 0, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && st != nil:
		c.confirmed(st)
		return st.idx, nil
	case resp.StatusCode != http.StatusOK:
		return nil, &Error{Repository: repo, Status: resp.StatusCode, Err: statusError(resp, u)}
	}
	idx, err := read(resp, only)
	if err != nil {
		return nil, c.fail(ctx, repo, resp.StatusCode, err)
	}
	if !private {
		c.remember(indexURL, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), idx)
	}
	return idx, nil
}

// read parses an index answer, at most the cap of it (fetch caps the body).
func read(resp *http.Response, only map[string]bool) (*index, error) {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return nil, errHTML
	}
	// An HTML page served as text/plain or YAML still starts with "<".
	var head [1]byte
	n, _ := io.ReadFull(resp.Body, head[:])
	if n == 1 && head[0] == '<' {
		return nil, errHTML
	}
	ctx := context.Background()
	if resp.Request != nil {
		ctx = resp.Request.Context() // the repository's time: a JSON index may wait for another's parse
	}
	idx, err := parseIn(ctx, io.MultiReader(bytes.NewReader(head[:n]), resp.Body), only)
	if over := fetch.Over(resp.Body); over != nil {
		return nil, over
	}
	return idx, err
}

var errHTML = errors.New("the answer is an HTML page, not a Helm repository index: a login page or a web site? check the URL (it must be the repository's, where index.yaml is) and the credentials")

// fail wraps what went wrong with a repository, saying so plainly when it
// did not answer in time.
func (c *Client) fail(ctx context.Context, repo string, status int, err error) error {
	if fetch.TimedOut(ctx) {
		err = fmt.Errorf("no index within %s: the repository did not answer (check the URL and that the host is reachable)", c.o.Timeout)
	}
	return &Error{Repository: repo, Status: status, Err: err}
}

// statusError says what a status means for the repository at repo, and
// what to check.
func statusError(resp *http.Response, repo *url.URL) error {
	s := fmt.Sprintf("GET index.yaml answered %s", resp.Status)
	switch code := resp.StatusCode; {
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && !fetch.SameOrigin(resp.Request.URL, repo):
		return fmt.Errorf("%s at %s, where %s redirected: credentials go to the repository's own scheme, host and port only, never through a redirect to another", s, secret.Redact(resp.Request.URL), repo.Host)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("%s: the repository wants credentials, or refused those given: give them for %s in the config", s, resp.Request.URL.Host)
	case code == http.StatusNotFound || code == http.StatusGone:
		return fmt.Errorf("%s: no index there: check the repository URL (a typo? a git repository or web page rather than a chart repository?)", s)
	case code >= 300 && code < 400:
		return fmt.Errorf("%s: a redirect without a Location", s)
	case code >= 500:
		return fmt.Errorf("%s: the repository's server failed; the next run tries again", s)
	}
	return errors.New(s)
}

// get sends GET target for the repository at repo (with its URL's
// credentials), conditionally when the cache holds doc, through the
// guarded client: redirects by imagebot's rules, credentials only to the
// repository's own host.
func (c *Client) get(ctx context.Context, repo, target *url.URL, doc *cache.Document) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "imagebot")
	if doc != nil {
		if doc.ETag != "" {
			req.Header.Set("If-None-Match", doc.ETag)
		}
		if doc.LastModified != "" {
			req.Header.Set("If-Modified-Since", doc.LastModified)
		}
	}
	resp, err := c.f.HTTP(repo).Do(req)
	if err != nil {
		return nil, fetch.Plain(err)
	}
	return resp, nil
}

// ErrLocalHost is wrapped by the error of a repository (or a redirect)
// on this machine or its networks that WithLocalHosts does not allow.
var ErrLocalHost = fetch.ErrLocalHost
