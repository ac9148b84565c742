// Package gitsource lists the tags of git repositories with git's own
// protocol (the ref advertisement of smart HTTP, what `git ls-remote`
// reads, through go-git), for the versions GitOps repositories deploy by
// git tag (issue 28). It is beside the registry client and the chart
// repository client in the pipeline, with their rules: one request per
// repository and run, credentials to their own host alone, hosts on this
// machine or its networks only when the config names them, answers
// bounded in bytes and time, listings kept under --cache.
//
// The advertisement holds names and commits, no dates: a tag's date would
// cost a fetch of its objects, which no lookup here makes.
package gitsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/memo"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/retry"
)

// Credentials authenticate against one git host, as HTTP basic auth (a
// forge token as the password).
type Credentials struct{ Username, Password string }

// DefaultMaxBytes caps one ref advertisement: 100,000 tags, peeled, weigh
// about 12 MiB.
const DefaultMaxBytes = 32 << 20

// Option configures a Client.
type Option func(*options)

type options struct {
	credentials map[string]Credentials
	cache       *cache.Cache
	maxBytes    int64
	timeout     time.Duration
	retryMax    int
	retryWait   time.Duration
	transport   http.RoundTripper
	logger      *slog.Logger
	guardLocal  bool
	localHosts  map[string]bool
	concurrency map[string]int
}

// DefaultConcurrency is the requests in flight per host, as the registry
// client's default: a fleet naming 500 repositories of one forge opens
// 8 connections to it, not 500.
const DefaultConcurrency = 8

// WithHostConcurrency sets the requests in flight per host ("github.com")
// instead of DefaultConcurrency.
func WithHostConcurrency(m map[string]int) Option { return func(o *options) { o.concurrency = m } }

// WithCredentials sets credentials per git host ("github.com",
// "127.0.0.1:8080"): sent to that host alone.
func WithCredentials(c map[string]Credentials) Option { return func(o *options) { o.credentials = c } }

// WithCache keeps listings across runs in c, listed again after c's TTL.
func WithCache(c *cache.Cache) Option { return func(o *options) { o.cache = c } }

// WithMaxBytes caps what one repository's advertisement may weigh.
func WithMaxBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxBytes = n
		}
	}
}

// WithTimeout bounds what one repository may cost, retries and redirects
// included (default 1 minute).
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithRetry sets how often a request failed with 429, 5xx or a network
// error is tried again (default 4), and the longest wait between two.
func WithRetry(max int, maxWait time.Duration) Option {
	return func(o *options) {
		if max >= 0 {
			o.retryMax = max
		}
		if maxWait > 0 {
			o.retryWait = maxWait
		}
	}
}

// WithTransport sets the base transport under the retries.
func WithTransport(rt http.RoundTripper) Option { return func(o *options) { o.transport = rt } }

// WithLocalHosts refuses, without a request, a host on this machine or
// its networks (localnet.Is) unless it is among allowed, as the registry
// and chart clients do: a manifest must not make the bot probe them.
func WithLocalHosts(allowed []string) Option {
	return func(o *options) {
		o.guardLocal, o.localHosts = true, map[string]bool{}
		for _, h := range allowed {
			o.localHosts[strings.ToLower(h)] = true
		}
	}
}

// WithLogger sets where retries are logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Tag is one tag of a repository: its name and the commit it points at
// (peeled when annotated).
type Tag struct {
	Name   string `json:"name"`
	Commit string `json:"commit"`
}

// Listing is what a repository advertises: its tags and branch names.
type Listing struct {
	Tags     []Tag    `json:"tags"`
	Branches []string `json:"branches,omitempty"`
}

// Client lists git repositories' tags. It is safe for concurrent use and
// lives for one run: each repository is listed once.
type Client struct {
	o        options
	rt       http.RoundTripper
	listings memo.Memo[Listing]
	assets   memo.Memo[bool]
	mu       sync.Mutex
	stats    map[string]*HostStats
	slots    map[string]chan struct{} // per host: the requests in flight
}

// New returns a Client.
func New(opts ...Option) *Client {
	o := options{maxBytes: DefaultMaxBytes, timeout: time.Minute, retryMax: 4, retryWait: 30 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.transport == nil && o.guardLocal {
		// The guard on the address dialled, as on the spelling
		// (checkLocal): a name resolving to this machine or its networks
		// is not contacted unless the config names it.
		o.transport = localnet.NewGuard(slices.Collect(maps.Keys(o.localHosts))).Transport(http.DefaultTransport.(*http.Transport))
	}
	if o.transport == nil {
		o.transport = http.DefaultTransport
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{o: o, stats: map[string]*HostStats{}, slots: map[string]chan struct{}{}}
	c.rt = retry.Transport(&counted{c: c, next: o.transport}, o.retryMax, o.retryWait, retry.Check, o.logger)
	return c
}

// Error is a repository (or asset) that could not be read.
type Error struct {
	URL string // never with credentials
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("git repository %s: %v", e.URL, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// ErrLocalHost is wrapped by the error of a host on this machine or its
// networks that WithLocalHosts does not allow.
var ErrLocalHost = errors.New("local git host not allowed")

var errTimedOut = errors.New("timed out")

// List returns the tags and branches of the repository at repoURL
// (https://HOST/PATH, with the credentials it was written with, if any,
// which go to its host alone and are never shown). It asks once per
// Client, whoever asks.
func (c *Client) List(ctx context.Context, repoURL string) (Listing, error) {
	u, err := url.Parse(repoURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Listing{}, &Error{URL: redactString(repoURL), Err: errors.New("not an http:// or https:// URL")}
	}
	key := repoURL // in memory only: a URL with credentials is its own entry
	return c.listings.Get(ctx, key, func(ctx context.Context) (Listing, error) { return c.load(ctx, u) })
}

// HostStats counts the HTTP requests sent to one git host, retries and
// redirects included, and the listings taken from the cache.
type HostStats struct {
	Host      string
	Requests  int
	Errors    int
	FromCache int
}

// Stats is what the Client cost each host so far.
func (c *Client) Stats() []HostStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]HostStats, 0, len(c.stats))
	for _, s := range c.stats {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b HostStats) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// acquire waits for one of host's slots; release gives it back.
func (c *Client) acquire(ctx context.Context, host string) (release func(), err error) {
	host = strings.ToLower(host)
	c.mu.Lock()
	slots := c.slots[host]
	if slots == nil {
		n := c.o.concurrency[host]
		if n <= 0 {
			n = DefaultConcurrency
		}
		slots = make(chan struct{}, n)
		c.slots[host] = slots
	}
	c.mu.Unlock()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *Client) count(host string, f func(*HostStats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats[host]
	if s == nil {
		s = &HostStats{Host: host}
		c.stats[host] = s
	}
	f(s)
}

// redact drops a URL's credentials and query for messages.
func redact(u *url.URL) string {
	out := *u
	out.User, out.RawQuery = nil, ""
	return out.String()
}

func redactString(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + s[i+1:]
		}
	}
	return s
}
