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
	"net/url"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/fetch"
	"github.com/imagebot/imagebot/internal/memo"
)

// Credentials authenticate against one git host, as HTTP basic auth (a
// forge token as the password).
type Credentials = fetch.Credentials

// DefaultMaxBytes caps one ref advertisement: 100,000 tags, peeled, weigh
// about 12 MiB.
const DefaultMaxBytes = 32 << 20

// Option configures a Client: the guarded client's settings (fetch) and
// the options of this package alone.
type Option = fetch.Option[own]

type options = fetch.Options[own]

// own are the options of git repositories alone.
type own struct {
	concurrency map[string]int
}

// DefaultConcurrency is the requests in flight per host, as the registry
// client's default: a fleet naming 500 repositories of one forge opens
// 8 connections to it, not 500.
const DefaultConcurrency = 8

// WithHostConcurrency sets the requests in flight per host ("github.com")
// instead of DefaultConcurrency.
func WithHostConcurrency(m map[string]int) Option {
	return func(o *options) { o.Own.concurrency = m }
}

// The guarded client's options (fetch), as this package's.
var (
	// WithCredentials sets credentials per git host ("github.com",
	// "127.0.0.1:8080"): sent to that host alone.
	WithCredentials = fetch.WithCredentials[own]
	// WithCache keeps listings across runs in c, listed again after c's
	// TTL.
	WithCache = fetch.WithCache[own]
	// WithMaxBytes caps what one repository's advertisement may weigh.
	WithMaxBytes = fetch.WithMaxBytes[own]
	// WithTimeout bounds what one repository may cost, retries and
	// redirects included (default 1 minute).
	WithTimeout = fetch.WithTimeout[own]
	// WithRetry sets how often a request failed with 429, 5xx or a
	// network error is tried again (default 4), and the longest wait
	// between two.
	WithRetry = fetch.WithRetry[own]
	// WithTransport sets the base transport under the retries.
	WithTransport = fetch.WithTransport[own]
	// WithLocalHosts refuses, without a request, a host on this machine
	// or its networks (localnet.Is) unless it is among allowed, as the
	// registry and chart clients do: a manifest must not make the bot
	// probe them.
	WithLocalHosts = fetch.WithLocalHosts[own]
	// WithLogger sets where retries are logged.
	WithLogger = fetch.WithLogger[own]
)

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
	f        *fetch.Client
	listings memo.Memo[Listing]
	assets   memo.Memo[bool]
	mu       sync.Mutex
	slots    map[string]chan struct{} // per host: the requests in flight
}

// New returns a Client.
func New(opts ...Option) *Client {
	o := fetch.Defaults(DefaultMaxBytes, own{})
	for _, opt := range opts {
		opt(&o)
	}
	return &Client{o: o, f: fetch.New(o.Settings, "the ref advertisement", inspect), slots: map[string]chan struct{}{}}
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
var ErrLocalHost = fetch.ErrLocalHost

// List returns the tags and branches of the repository at repoURL
// (https://HOST/PATH, with the credentials it was written with, if any,
// which go to its host alone and are never shown). It asks once per
// Client, whoever asks.
func (c *Client) List(ctx context.Context, repoURL string) (Listing, error) {
	u, err := url.Parse(repoURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Listing{}, &Error{URL: fetch.RedactString(repoURL), Err: errors.New("not an http:// or https:// URL")}
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
	stats := c.f.Stats()
	out := make([]HostStats, 0, len(stats))
	for _, s := range stats {
		out = append(out, HostStats{Host: s.Host, Requests: s.Requests, Errors: s.Errors, FromCache: s.FromCache})
	}
	return out
}

// acquire waits for one of host's slots; release gives it back.
func (c *Client) acquire(ctx context.Context, host string) (release func(), err error) {
	host = strings.ToLower(host)
	c.mu.Lock()
	slots := c.slots[host]
	if slots == nil {
		n := c.o.Own.concurrency[host]
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
