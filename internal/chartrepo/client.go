package chartrepo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/fetch"
	"github.com/imagebot/imagebot/internal/memo"
)

// Credentials authenticate against one repository host, as HTTP basic auth.
type Credentials = fetch.Credentials

// DefaultMaxIndexBytes caps an index.yaml: the largest public ones weigh
// some tens of MiB.
const DefaultMaxIndexBytes = 64 << 20

// Option configures a Client: the guarded client's settings (fetch) and
// the options of this package alone.
type Option = fetch.Option[own]

type options = fetch.Options[own]

// own are the options of chart repositories alone.
type own struct {
	concurrency int
	mirrors     []chartMirror // WithMirrors, longest prefix first
}

// The guarded client's options (fetch), as this package's.
var (
	// WithCredentials sets credentials per repository host
	// ("charts.example.com", "127.0.0.1:8080").
	WithCredentials = fetch.WithCredentials[own]
	// WithCache keeps indexes across runs in c, revalidated after c's TTL.
	WithCache = fetch.WithCache[own]
	// WithMaxIndexBytes caps what one index.yaml may weigh (default 64 MiB).
	WithMaxIndexBytes = fetch.WithMaxBytes[own]
	// WithTimeout bounds what one repository may cost: its index's
	// requests, retries, redirects and body all included (default 1
	// minute).
	WithTimeout = fetch.WithTimeout[own]
	// WithRetry sets how often a request failed with 429, 5xx or a
	// network error is tried again (default 4) and the longest wait
	// between two attempts (default 30s): a Retry-After longer than
	// maxWait fails the repository at once.
	WithRetry = fetch.WithRetry[own]
	// WithTransport sets the base transport under the retries.
	WithTransport = fetch.WithTransport[own]
	// WithLocalHosts guards this machine and its networks (localnet.Is):
	// a repository there, or a redirect there, is refused without a
	// request unless its host ("127.0.0.1:8080") is among allowed.
	WithLocalHosts = fetch.WithLocalHosts[own]
	// WithLogger sets where retries are logged (default: nowhere).
	WithLogger = fetch.WithLogger[own]
)

// WithConcurrency bounds the indexes fetched and parsed at once (default
// 4): an index is held whole in memory only while it is read.
func WithConcurrency(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.Own.concurrency = n
		}
	}
}

// Client lists chart versions from HTTP Helm repositories. It is safe for
// concurrent use and lives for one run.
type Client struct {
	o       options
	f       *fetch.Client
	sem     chan struct{}
	indexes memo.Memo[*index]
	mu      sync.Mutex
	// expected are the charts Expect named, by repository URL.
	expected map[string]map[string]bool
}

// New returns a Client.
func New(opts ...Option) *Client {
	o := fetch.Defaults(DefaultMaxIndexBytes, own{concurrency: 4})
	for _, opt := range opts {
		opt(&o)
	}
	for _, m := range o.Own.mirrors {
		if o.GuardLocal {
			o.LocalHosts[strings.ToLower(m.to.Host)] = true // written on purpose
		}
	}
	return &Client{o: o, f: fetch.New(o.Settings, "index.yaml", nil), sem: make(chan struct{}, o.Own.concurrency)}
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
		return nil, nil, &Error{Repository: fetch.RedactString(s), Err: errors.New("not a URL")}
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

// Error is a repository that could not be read.
type Error struct {
	Repository string // the repository URL, never with credentials
	Status     int    // the HTTP status of the last answer; 0 when none came
	Err        error
}

func (e *Error) Error() string { return fmt.Sprintf("chart repository %s: %v", e.Repository, e.Err) }
func (e *Error) Unwrap() error { return e.Err }
