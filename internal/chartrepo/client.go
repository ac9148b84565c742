package chartrepo

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

// Credentials authenticate against one repository host, as HTTP basic auth.
type Credentials struct{ Username, Password string }

// DefaultMaxIndexBytes caps an index.yaml: the largest public ones weigh
// some tens of MiB.
const DefaultMaxIndexBytes = 64 << 20

// Option configures a Client.
type Option func(*options)

type options struct {
	credentials map[string]Credentials
	cache       *cache.Cache
	maxBytes    int64
	timeout     time.Duration
	retryMax    int
	retryWait   time.Duration
	concurrency int
	transport   http.RoundTripper
	logger      *slog.Logger
	guardLocal  bool            // WithLocalHosts was given
	localHosts  map[string]bool // the local hosts allowed
	mirrors     []chartMirror   // WithMirrors, longest prefix first
}

// WithCredentials sets credentials per repository host ("charts.example.com",
// "127.0.0.1:8080").
func WithCredentials(c map[string]Credentials) Option { return func(o *options) { o.credentials = c } }

// WithCache keeps indexes across runs in c, revalidated after c's TTL.
func WithCache(c *cache.Cache) Option { return func(o *options) { o.cache = c } }

// WithMaxIndexBytes caps what one index.yaml may weigh (default 64 MiB).
func WithMaxIndexBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.maxBytes = n
		}
	}
}

// WithTimeout bounds what one repository may cost: its index's requests,
// retries, redirects and body all included (default 1 minute).
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithRetry sets how often a request failed with 429, 5xx or a network
// error is tried again (default 4) and the longest wait between two
// attempts (default 30s), as the registry client's WithRetry: a
// Retry-After longer than maxWait fails the repository at once.
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

// WithConcurrency bounds the indexes fetched and parsed at once (default
// 4): an index is held whole in memory only while it is read.
func WithConcurrency(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.concurrency = n
		}
	}
}

// WithTransport sets the base transport under the retries.
func WithTransport(rt http.RoundTripper) Option { return func(o *options) { o.transport = rt } }

// WithLocalHosts guards this machine and its networks (localnet.Is): a
// repository there, or a redirect there, is refused without a request
// unless its host ("127.0.0.1:8080") is among allowed, as the registry
// client's WithLocalHosts refuses a local registry a manifest names.
func WithLocalHosts(allowed []string) Option {
	return func(o *options) {
		o.guardLocal, o.localHosts = true, map[string]bool{}
		for _, h := range allowed {
			o.localHosts[strings.ToLower(h)] = true
		}
	}
}

// WithLogger sets where retries are logged (default: nowhere).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Client lists chart versions from HTTP Helm repositories. It is safe for
// concurrent use and lives for one run.
type Client struct {
	o       options
	rt      http.RoundTripper
	sem     chan struct{}
	indexes memo.Memo[*index]
	mu      sync.Mutex
	stats   map[string]*hostStats
	// expected are the charts Expect named, by repository URL.
	expected map[string]map[string]bool
}

// New returns a Client.
func New(opts ...Option) *Client {
	o := options{maxBytes: DefaultMaxIndexBytes, timeout: time.Minute, retryMax: 4, retryWait: 30 * time.Second, concurrency: 4}
	for _, opt := range opts {
		opt(&o)
	}
	for _, m := range o.mirrors {
		if o.guardLocal {
			o.localHosts[strings.ToLower(m.to.Host)] = true // written on purpose
		}
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
	c := &Client{o: o, sem: make(chan struct{}, o.concurrency), stats: map[string]*hostStats{}}
	c.rt = retry.Transport(&attempt{c: c, next: o.transport}, o.retryMax, o.retryWait, retry.Check, o.logger)
	return c
}

// ErrNoChart is wrapped by the error of a chart its repository's index
// does not list.
var ErrNoChart = errors.New("no such chart in the repository's index")

// Versions returns what the index of the repository at repoURL
// ("https://charts.example.com/stable") says of chart. The index is fetched
// at most once per Client, whichever chart is asked for. Credentials
// written in repoURL (https://USER:PASSWORD@host/path) are sent to the
// repository's own host alone, before those of WithCredentials; neither
// the Chart nor any error holds them.
func (c *Client) Versions(ctx context.Context, repoURL, chart string) (Chart, error) {
	u, user, err := parseRepoURL(repoURL)
	if err != nil {
		return Chart{}, err
	}
	shown := u.String()
	only := c.expects(shown)
	key := shown + userKey(user) // a repository asked for with and without credentials answers each
	withUser := *u
	withUser.User = user
	idx, err := c.indexes.Get(ctx, key, func(ctx context.Context) (*index, error) { return c.loadMirrored(ctx, &withUser, only) })
	if err == nil && !idx.keeps(chart) {
		// Not expected: the whole index, once more (a caller that
		// expects what it asks for never comes here).
		idx, err = c.indexes.Get(ctx, key+"\x00*", func(ctx context.Context) (*index, error) { return c.loadMirrored(ctx, &withUser, nil) })
	}
	if err != nil {
		return Chart{}, err
	}
	vs, ok := idx.charts[chart]
	if !ok {
		return Chart{}, &Error{Repository: shown, Err: fmt.Errorf("chart %q: %w (it lists %d charts): check the chart's name", chart, ErrNoChart, idx.listed)}
	}
	if len(vs) == 0 {
		return Chart{}, &Error{Repository: shown, Err: fmt.Errorf("chart %q has no version that is semver in the index", chart)}
	}
	return Chart{Repository: shown, Name: chart, Versions: vs}, nil
}

// Expect names the charts of the repository at repoURL that are about to
// be asked for: its index is then parsed keeping only those (a big index
// holds hundreds of charts), which bounds a run's memory by the charts it
// uses. Call it before the first Versions of the repository; a chart
// asked for without being expected costs a second fetch.
func (c *Client) Expect(repoURL string, charts ...string) {
	u, _, err := parseRepoURL(repoURL)
	if err != nil {
		return // Versions says why
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.expected == nil {
		c.expected = map[string]map[string]bool{}
	}
	set := c.expected[u.String()]
	if set == nil {
		set = map[string]bool{}
		c.expected[u.String()] = set
	}
	for _, ch := range charts {
		set[ch] = true
	}
}

// expects is the set of charts expected of a repository, nil for all.
func (c *Client) expects(repo string) map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.expected[repo])
}

// parseRepoURL checks a repository URL and drops what must not travel
// further: credentials written in it (returned apart, for the request), a
// trailing slash, a fragment.
func parseRepoURL(s string) (*url.URL, *url.Userinfo, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, nil, &Error{Repository: redactString(s), Err: errors.New("not a URL")}
	}
	user := u.User
	u.User, u.Fragment = nil, ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	switch {
	case u.Scheme == "oci":
		return nil, nil, &Error{Repository: u.String(), Err: errors.New("an OCI registry, not an HTTP chart repository: its versions are its tags")}
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, nil, &Error{Repository: u.String(), Err: errors.New("not an http:// or https:// URL")}
	}
	return u, user, nil
}

// redactString drops what looks like credentials from an unparsable URL.
func redactString(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + s[i+1:]
		}
		return s[i+1:]
	}
	return s
}

// Error is a repository that could not be read.
type Error struct {
	Repository string // the repository URL, never with credentials
	Status     int    // the HTTP status of the last answer; 0 when none came
	Err        error
}

func (e *Error) Error() string { return fmt.Sprintf("chart repository %s: %v", e.Repository, e.Err) }
func (e *Error) Unwrap() error { return e.Err }
