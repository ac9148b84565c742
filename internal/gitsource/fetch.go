package gitsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/retry"
)

// listingType is the media type listings are kept under in the cache.
const listingType = "application/vnd.imagebot.git-refs.v1+json"

const maxRedirects = 10

// load lists the repository at u: from the cache while fresh, else with
// one ref advertisement through go-git's smart-HTTP client, over the
// Client's transport (retries, the local guard, the byte cap).
func (c *Client) load(ctx context.Context, u *url.URL) (Listing, error) {
	shown := redact(u)
	refsURL := shown + "/info/refs?service=git-upload-pack"
	private := u.User != nil // what a URL's own credentials read is for that URL alone
	if !private && c.o.cache != nil {
		if d, o, ok := c.o.cache.Document(refsURL, listingType); ok && c.o.cache.FreshDocument(d) {
			var l Listing
			if json.Unmarshal(o.Data, &l) == nil {
				c.count(u.Host, func(s *HostStats) { s.FromCache++ })
				return l, nil
			}
		}
	}
	if err := c.checkLocal(u); err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	// The repository's time starts once it has a slot of its host.
	release, err := c.acquire(ctx, u.Host)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	defer release()
	ctx, cancel := context.WithTimeoutCause(ctx, c.o.timeout, errTimedOut)
	defer cancel()
	hc := &http.Client{Transport: &guarded{c: c, repo: u}, CheckRedirect: c.redirect}
	ep, err := transport.NewEndpoint(shown)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	sess, err := githttp.NewClient(hc).NewUploadPackSession(ep, nil)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: err}
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return Listing{}, &Error{URL: shown, Err: explain(ctx, err, c.o.timeout)}
	}
	l := Listing{}
	for name, h := range ar.References {
		switch {
		case strings.HasPrefix(name, "refs/tags/") && !strings.HasSuffix(name, "^{}"):
			commit := h
			if p, ok := ar.Peeled[name]; ok {
				commit = p // an annotated tag's commit
			}
			l.Tags = append(l.Tags, Tag{Name: strings.TrimPrefix(name, "refs/tags/"), Commit: commit.String()})
		case strings.HasPrefix(name, "refs/heads/"):
			l.Branches = append(l.Branches, strings.TrimPrefix(name, "refs/heads/"))
		}
	}
	sort.Slice(l.Tags, func(i, j int) bool { return l.Tags[i].Name < l.Tags[j].Name })
	sort.Strings(l.Branches)
	if !private && c.o.cache != nil {
		if data, err := json.Marshal(l); err == nil {
			_ = c.o.cache.PutDocument(cache.Document{URL: refsURL, Checked: c.o.cache.Now()}, cache.Object{MediaType: listingType, Data: data})
		}
	}
	return l, nil
}

// explain says what a failed advertisement means, plainly.
func explain(ctx context.Context, err error, timeout time.Duration) error {
	var he *errHTML
	var refused *localnet.DialError
	switch {
	case errors.As(err, &refused):
		// A name that resolves to this machine or its networks: refused
		// when dialled, as a local host spelt out is before any request.
		return fmt.Errorf("%w: if it is yours, name its host in the config (registries: {%q: {}}): %w", refused, refused.Host, ErrLocalHost)
	case errors.Is(context.Cause(ctx), errTimedOut):
		return fmt.Errorf("no answer within %s: check the URL and that the host is reachable", timeout)
	case errors.As(err, &he):
		return he
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return errors.New("not found (404): check the URL; a private repository needs credentials for its host in the config")
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return errors.New("the host wants credentials, or refused those given: give them for its host in the config (registries: HOST: username, passwordEnv)")
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return errors.New("the repository is empty: it has no tags")
	}
	return err
}

type errHTML struct{ status string }

func (e *errHTML) Error() string {
	return "the answer is an HTML page (" + e.status + "), not git's ref advertisement: a login page or a web site? check that the URL is the repository's"
}

// redirect follows at most maxRedirects, never from https to http, never
// to a local host the config does not name.
func (c *Client) redirect(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1].URL
	switch {
	case len(via) >= maxRedirects:
		return fmt.Errorf("more than %d redirects (last to %s)", maxRedirects, redact(req.URL))
	case prev.Scheme == "https" && req.URL.Scheme != "https":
		return fmt.Errorf("refusing a redirect from https to %s", redact(req.URL))
	}
	return c.checkLocal(req.URL)
}

// checkLocal refuses a local host the config does not name.
func (c *Client) checkLocal(u *url.URL) error {
	if !c.o.guardLocal || !localnet.Is(u.Host) || c.o.localHosts[strings.ToLower(u.Host)] {
		return nil
	}
	return fmt.Errorf("%s is on this machine or its private network and is named only in a manifest, so it was not contacted: "+
		"if it is yours, name its host in the config (registries: {%q: {}}): %w", u.Host, u.Host, ErrLocalHost)
}

// guarded is the transport of one repository's requests: credentials to
// the repository's own host alone (those written in its URL first, then
// the config's for the host), HTML answers refused, bodies capped.
type guarded struct {
	c    *Client
	repo *url.URL
}

func (g *guarded) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Del("Authorization")
	if req.Header.Get("User-Agent") == "" {
		// go-git's own (go-git/5.x) is kept: git hosts know it, from Flux.
		req.Header.Set("User-Agent", "imagebot")
	}
	if req.URL.Host == g.repo.Host && req.URL.Scheme == g.repo.Scheme {
		if g.repo.User != nil {
			p, _ := g.repo.User.Password()
			req.SetBasicAuth(g.repo.User.Username(), p)
		} else if cr, ok := g.c.o.credentials[strings.ToLower(req.URL.Host)]; ok {
			req.SetBasicAuth(cr.Username, cr.Password)
		}
	}
	resp, err := g.c.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode != http.StatusOK:
	case mt == "text/html":
		resp.Body.Close()
		return nil, &errHTML{status: resp.Status}
	case strings.HasSuffix(req.URL.Path, "/info/refs") && mt != "application/x-git-upload-pack-advertisement":
		// Git's smart HTTP says what it sends; anything else (a dumb
		// HTTP server, a file) is no advertisement to decode.
		resp.Body.Close()
		return nil, &retry.Permanent{Err: fmt.Errorf("the answer (%s) is not git's smart HTTP ref advertisement: is the URL a git repository's?", orNone(mt))}
	}
	if resp.ContentLength > g.c.o.maxBytes {
		resp.Body.Close()
		return nil, g.c.tooLarge()
	}
	resp.Body = &capped{ReadCloser: resp.Body, left: g.c.o.maxBytes, err: g.c.tooLarge()}
	return resp, nil
}

func (c *Client) tooLarge() error {
	return &retry.Permanent{Err: fmt.Errorf("the ref advertisement is over the %d MiB allowed", c.o.maxBytes>>20)}
}

// capped reads at most left bytes, then fails with err.
type capped struct {
	io.ReadCloser
	left int64
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.ReadCloser.Read(one[:]); n > 0 {
			return 0, c.err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}

// counted counts each request sent, retries included.
type counted struct {
	c    *Client
	next http.RoundTripper
}

func (a *counted) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	a.c.count(req.URL.Host, func(s *HostStats) {
		s.Requests++
		if err != nil || resp.StatusCode >= 400 {
			s.Errors++
		}
	})
	if err == nil {
		if d, ok := retry.TooLong(resp, a.c.o.retryWait); ok {
			resp.Body.Close()
			return nil, &retry.Permanent{Err: fmt.Errorf("%s answered %s and asks to wait %s (Retry-After), longer than imagebot waits", req.URL.Host, resp.Status, d.Round(time.Second))}
		}
	}
	return resp, err
}

// Serves reports whether assetURL (a release asset or raw file at a tag)
// is there: one HEAD, redirects followed, asked once per Client. A 404 is
// false; another failure is an error naming the URL.
func (c *Client) Serves(ctx context.Context, assetURL string) (bool, error) {
	u, err := url.Parse(assetURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return false, &Error{URL: redactString(assetURL), Err: errors.New("not an http:// or https:// URL")}
	}
	return c.assets.Get(ctx, assetURL, func(ctx context.Context) (bool, error) {
		if err := c.checkLocal(u); err != nil {
			return false, &Error{URL: redact(u), Err: err}
		}
		release, err := c.acquire(ctx, u.Host)
		if err != nil {
			return false, &Error{URL: redact(u), Err: err}
		}
		defer release()
		ctx, cancel := context.WithTimeoutCause(ctx, c.o.timeout, errTimedOut)
		defer cancel()
		plain := *u
		plain.User = nil
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, plain.String(), nil)
		if err != nil {
			return false, &Error{URL: redact(u), Err: err}
		}
		elsewhere := false // redirected to another host
		hc := &http.Client{Transport: &guarded{c: c, repo: u}, CheckRedirect: func(req *http.Request, via []*http.Request) error {
			elsewhere = elsewhere || req.URL.Host != u.Host
			return c.redirect(req, via)
		}}
		resp, err := hc.Do(req)
		if err != nil {
			return false, &Error{URL: redact(u), Err: explain(ctx, err, c.o.timeout)}
		}
		resp.Body.Close()
		switch code := resp.StatusCode; {
		case code == http.StatusOK:
			return true, nil
		case code == http.StatusNotFound || code == http.StatusGone:
			return false, nil
		case elsewhere && (code == http.StatusForbidden || code == http.StatusMethodNotAllowed):
			// The forge sent us on to its storage (GitHub's release
			// downloads go to a URL signed for GET alone), which it does
			// only for an asset it has: a missing one is its own 404.
			return true, nil
		}
		return false, &Error{URL: redact(u), Err: fmt.Errorf("HEAD answered %s", resp.Status)}
	})
}

func orNone(mt string) string {
	if mt == "" {
		return "no content type"
	}
	return mt
}
