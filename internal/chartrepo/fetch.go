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
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/retry"
)

// maxRedirects is net/http's own limit.
const maxRedirects = 10

var errTimedOut = errors.New("timed out")

// load reads the index of the repository at u: from the cache while it is
// fresh, else from the repository, conditionally when the cache holds it.
// u's credentials, if any, go only into the request's basic auth.
func (c *Client) load(ctx context.Context, u *url.URL, only map[string]bool) (*index, error) {
	repo := redact(u)
	ctx, cancel := context.WithTimeoutCause(ctx, c.o.timeout, errTimedOut)
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
		if c.o.cache.FreshDocument(st.doc) {
			c.host(u.Host).fromCache.Add(1)
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
	idx, err := c.read(resp, only)
	if err != nil {
		return nil, c.fail(ctx, repo, resp.StatusCode, err)
	}
	if !private {
		c.remember(indexURL, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), idx)
	}
	return idx, nil
}

// read parses an index answer, at most the cap of it.
func (c *Client) read(resp *http.Response, only map[string]bool) (*index, error) {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return nil, errHTML
	}
	if resp.ContentLength > c.o.maxBytes {
		return nil, c.tooLarge(resp.ContentLength)
	}
	body := &capped{r: resp.Body, left: c.o.maxBytes}
	// An HTML page served as text/plain or YAML still starts with "<".
	var head [1]byte
	n, _ := io.ReadFull(body, head[:])
	if n == 1 && head[0] == '<' {
		return nil, errHTML
	}
	ctx := context.Background()
	if resp.Request != nil {
		ctx = resp.Request.Context() // the repository's time: a JSON index may wait for another's parse
	}
	idx, err := parseIn(ctx, io.MultiReader(bytes.NewReader(head[:n]), body), only)
	if body.over {
		return nil, c.tooLarge(-1)
	}
	return idx, err
}

var errHTML = errors.New("the answer is an HTML page, not a Helm repository index: a login page or a web site? check the URL (it must be the repository's, where index.yaml is) and the credentials")

func (c *Client) tooLarge(n int64) error {
	if n < 0 {
		return &retry.Permanent{Err: fmt.Errorf("index.yaml is over the %d MiB allowed (raise the cap if the repository is yours to trust)", c.o.maxBytes>>20)}
	}
	return &retry.Permanent{Err: fmt.Errorf("index.yaml is %d bytes, over the %d MiB allowed (raise the cap if the repository is yours to trust)", n, c.o.maxBytes>>20)}
}

// capped reads at most left bytes and says whether there was more.
type capped struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.over = true
			return 0, errors.New("over the cap")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// fail wraps what went wrong with a repository, saying so plainly when it
// did not answer in time.
func (c *Client) fail(ctx context.Context, repo string, status int, err error) error {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		err = fmt.Errorf("no index within %s: the repository did not answer (check the URL and that the host is reachable)", c.o.timeout)
	}
	return &Error{Repository: repo, Status: status, Err: err}
}

// statusError says what a status means for the repository at repo, and
// what to check.
func statusError(resp *http.Response, repo *url.URL) error {
	s := fmt.Sprintf("GET index.yaml answered %s", resp.Status)
	switch code := resp.StatusCode; {
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && !sameOrigin(resp.Request.URL, repo):
		return fmt.Errorf("%s at %s, where %s redirected: credentials go to the repository's own scheme, host and port only, never through a redirect to another", s, redact(resp.Request.URL), repo.Host)
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

// get sends GET target, following redirects by imagebot's rules: at most
// maxRedirects, no loop, never from https to http, credentials only to
// the repository's own host.
func (c *Client) get(ctx context.Context, repo, target *url.URL, doc *cache.Document) (*http.Response, error) {
	seen := map[string]bool{}
	u := target
	for hops := 0; ; hops++ {
		if err := c.checkLocal(u); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", "imagebot")
		c.authorize(req, repo, u)
		if doc != nil {
			if doc.ETag != "" {
				req.Header.Set("If-None-Match", doc.ETag)
			}
			if doc.LastModified != "" {
				req.Header.Set("If-Modified-Since", doc.LastModified)
			}
		}
		resp, err := c.rt.RoundTrip(req)
		var refused *localnet.DialError
		if errors.As(err, &refused) {
			return nil, fmt.Errorf("%v: if it is yours, name its host in the config (registries: {%q: {}}): %w", refused, u.Host, ErrLocalHost)
		}
		if err != nil {
			return nil, err
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			return resp, nil
		}
		resp.Body.Close()
		next, err := u.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("redirected to a Location that is not a URL (%s)", resp.Status)
		}
		next.User = nil
		seen[u.String()] = true
		switch {
		case next.Scheme != "http" && next.Scheme != "https":
			return nil, fmt.Errorf("refusing a redirect to %s: not http or https", redact(next))
		case u.Scheme == "https" && next.Scheme == "http":
			return nil, fmt.Errorf("refusing a redirect from https to %s: a repository is never downgraded to http", redact(next))
		case seen[next.String()]:
			return nil, fmt.Errorf("redirect loop: %s leads back to %s", redact(u), redact(next))
		case hops >= maxRedirects:
			return nil, fmt.Errorf("more than %d redirects (last to %s)", maxRedirects, redact(next))
		}
		u = next
	}
}

// ErrLocalHost is wrapped by the error of a repository (or a redirect)
// on this machine or its networks that WithLocalHosts does not allow.
var ErrLocalHost = errors.New("local repository host not allowed")

// checkLocal refuses a local host the config does not name.
func (c *Client) checkLocal(u *url.URL) error {
	if !c.o.guardLocal || !localnet.Is(u.Host) || c.o.localHosts[strings.ToLower(u.Host)] {
		return nil
	}
	return fmt.Errorf("%s is on this machine or its private network and is named only in a manifest, so it was not contacted: "+
		"if it is yours, name its host in the config (registries: {%q: {}}): %w", u.Host, u.Host, ErrLocalHost)
}

// sameOrigin tells whether a and b have one scheme, host and port: the
// only place a repository's credentials go.
func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Host, b.Host)
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redact drops credentials and the query (a signed URL's secret) of a
// URL for messages.
func redact(u *url.URL) string {
	out := *u
	out.User, out.RawQuery = nil, ""
	return out.String()
}

// attempt is one HTTP request: counted, and failed at once when the
// server asks with Retry-After for more than the Client waits.
type attempt struct {
	c    *Client
	next http.RoundTripper
}

func (a *attempt) RoundTrip(req *http.Request) (*http.Response, error) {
	s := a.c.host(req.URL.Host)
	resp, err := a.next.RoundTrip(req)
	s.add(resp, err)
	if err != nil {
		return nil, err
	}
	if d, ok := retry.TooLong(resp, a.c.o.retryWait); ok {
		resp.Body.Close()
		return nil, &retry.Permanent{Err: fmt.Errorf("GET %s answered %s and asks to wait %s (Retry-After), longer than the %s imagebot waits; the next run tries again",
			path.Base(req.URL.Path), resp.Status, d.Round(time.Second), a.c.o.retryWait)}
	}
	return resp, nil
}
