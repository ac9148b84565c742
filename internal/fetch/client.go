package fetch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/retry"
	"github.com/imagebot/imagebot/internal/secret"
)

// maxRedirects is as many redirects as net/http follows.
const maxRedirects = 10

// ErrLocalHost is wrapped by the error of a host (or a redirect) on this
// machine or its networks that WithLocalHosts does not allow.
var ErrLocalHost = errors.New("local host not allowed")

var errTimedOut = errors.New("timed out")

// Client sends the requests of one lookup client (a chartrepo or
// gitsource Client) by the package's rules. It is safe for concurrent use.
type Client struct {
	s       Settings
	what    string
	inspect func(*http.Request, *http.Response) error
	rt      http.RoundTripper // the retries over the counted attempts
	mu      sync.Mutex
	stats   map[string]*hostStats
}

// New returns a Client sending through s.Transport, or, with
// WithLocalHosts, through a clone of net/http's default transport that
// dials a local address only for the hosts allowed: a name resolving to
// this machine or its networks is refused as its spelling (CheckLocal)
// is. what names a body in messages ("index.yaml"); inspect, if not nil,
// may refuse an answer before its body is read.
func New(s Settings, what string, inspect func(*http.Request, *http.Response) error) *Client {
	if s.Transport == nil && s.GuardLocal {
		s.Transport = localnet.NewGuard(slices.Collect(maps.Keys(s.LocalHosts))).Transport(http.DefaultTransport.(*http.Transport))
	}
	if s.Transport == nil {
		s.Transport = http.DefaultTransport
	}
	c := &Client{s: s, what: what, inspect: inspect, stats: map[string]*hostStats{}}
	c.rt = retry.Transport(&attempt{c: c, next: s.Transport}, s.RetryMax, s.RetryWait, retry.Check, s.Logger)
	return c
}

// HTTP is the http.Client for the requests of the repository at repo
// (with the credentials its URL was written with, if any): each request,
// redirects included, is guarded, retried, counted and capped, and gets
// credentials only on repo's own scheme and host.
func (c *Client) HTTP(repo *url.URL) *http.Client {
	return &http.Client{Transport: &guarded{c: c, repo: repo}, CheckRedirect: c.CheckRedirect}
}

// Deadline bounds ctx by the Client's timeout; TimedOut tells afterwards
// that this deadline is what ended it.
func (c *Client) Deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.s.Timeout, errTimedOut)
}

// TimedOut tells that ctx ended at a Client's Deadline.
func TimedOut(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errTimedOut) }

// CheckRedirect follows a redirect by imagebot's rules: to http or https
// only, never from https to http, without a loop, at most maxRedirects,
// never to a local host the config does not name. The credentials a
// Location is written with are dropped.
func (c *Client) CheckRedirect(req *http.Request, via []*http.Request) error {
	req.URL.User = nil
	prev, next := via[len(via)-1].URL, secret.Redact(req.URL)
	switch {
	case req.URL.Scheme != "http" && req.URL.Scheme != "https":
		return fmt.Errorf("refusing a redirect to %s: not http or https", next)
	case prev.Scheme == "https" && req.URL.Scheme == "http":
		return fmt.Errorf("refusing a redirect from https to %s: a repository is never downgraded to http", next)
	case slices.ContainsFunc(via, func(r *http.Request) bool { return r.URL.String() == req.URL.String() }):
		return fmt.Errorf("redirect loop: %s leads back to %s", secret.Redact(prev), next)
	case len(via) > maxRedirects:
		return fmt.Errorf("more than %d redirects (last to %s)", maxRedirects, next)
	}
	return c.CheckLocal(req.URL)
}

// CheckLocal refuses a local host the config does not name.
func (c *Client) CheckLocal(u *url.URL) error {
	if !c.s.GuardLocal || !localnet.Is(u.Host) || c.s.LocalHosts[strings.ToLower(u.Host)] {
		return nil
	}
	return fmt.Errorf("%s is on this machine or its private network and is named only in a manifest, so it was not contacted: "+
		"if it is yours, name its host in the config (registries: {%q: {}}): %w", u.Host, u.Host, ErrLocalHost)
}

// Plain is the error of a request as a client says it: without
// net/http's "Get URL:" (the client names the repository itself, and a
// redirect's URL may hold a signature), and a dial the guard refused said
// with its remedy.
func Plain(err error) error {
	var refused *localnet.DialError
	if errors.As(err, &refused) {
		host := refused.Host
		if h, port, err := net.SplitHostPort(host); err == nil && (port == "443" || port == "80") {
			host = h // as the config names it
		}
		return fmt.Errorf("%w: if it is yours, name its host in the config (registries: {%q: {}}): %w", refused, host, ErrLocalHost)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// SameOrigin tells whether a and b have one scheme, host and port: the
// only place a repository's credentials go.
func SameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Host, b.Host)
}

// credentials are what a request to u for the repository at repo is sent
// with: those repo's URL was written with, else the config's for its
// host; on repo's own scheme and host alone.
func (c *Client) credentials(repo, u *url.URL) (Credentials, bool) {
	if !SameOrigin(u, repo) {
		return Credentials{}, false
	}
	if repo.User != nil {
		p, _ := repo.User.Password()
		return Credentials{Username: repo.User.Username(), Password: p}, true
	}
	if cr, ok := c.s.Credentials[repo.Host]; ok {
		return cr, true
	}
	cr, ok := c.s.Credentials[strings.ToLower(repo.Host)]
	return cr, ok
}

// guarded is the transport of one repository's requests.
type guarded struct {
	c    *Client
	repo *url.URL
}

func (g *guarded) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := g.c.CheckLocal(req.URL); err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	// net/http copies these onto a redirect: the credentials are set
	// again below for the repository's own origin alone, and the URL
	// redirected from (a signed URL's query) goes nowhere.
	req.Header.Del("Authorization")
	req.Header.Del("Referer")
	if req.Header.Get("User-Agent") == "" {
		// A client's own (go-git/5.x) is kept: git hosts know it.
		req.Header.Set("User-Agent", "imagebot")
	}
	if cr, ok := g.c.credentials(g.repo, req.URL); ok {
		req.SetBasicAuth(cr.Username, cr.Password)
	}
	resp, err := g.c.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if g.c.inspect != nil {
		if err := g.c.inspect(req, resp); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	resp.Body = &capped{ReadCloser: resp.Body, c: g.c, length: resp.ContentLength, left: g.c.s.MaxBytes}
	return resp, nil
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
	if d, ok := retry.TooLong(resp, a.c.s.RetryWait); ok {
		resp.Body.Close()
		return nil, &retry.Permanent{Err: fmt.Errorf("%s answered %s and asks to wait %s (Retry-After), longer than the %s imagebot waits; the next run tries again",
			req.URL.Host, resp.Status, d.Round(time.Second), a.c.s.RetryWait)}
	}
	return resp, nil
}

// RedactString drops what looks like credentials from a URL that did not
// parse.
func RedactString(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + s[i+1:]
		}
		return s[i+1:]
	}
	return s
}
