package registry

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// Mirror is where the repositories of one registry host are fetched from
// instead. URL is "https://mirror.example.com" or, spelled out explicitly,
// "http://127.0.0.1:5000/some/prefix"; a path is prepended to every
// repository path.
type Mirror struct{ URL string }

// Credentials authenticate against one registry host.
type Credentials struct {
	Username, Password string
	// Env names the variable Password came from, for messages ("the
	// registry refused the credentials from IMAGEBOT_GHCR_TOKEN"); it is
	// never sent.
	Env string
}

// Limits bound what one registry may cost a run. A zero field keeps its
// default.
type Limits struct {
	// PageBytes caps one page of a tags listing (default 4 MiB: about
	// 150,000 tags of 25 characters, more than any registry serves in one
	// page).
	PageBytes int64
	// Pages caps the pages of one tags listing (default 1,000).
	Pages int
	// ManifestBytes caps a manifest (default 4 MiB, as containerd does).
	ManifestBytes int64
	// BlobBytes caps an image config blob (default 8 MiB).
	BlobBytes int64
	// TokenBytes caps a bearer token shared by several repositories
	// (default 7 KiB): the token rides in a header of every request, and
	// the fronts of registries refuse header lines beyond 8 KiB (nginx's
	// default). A larger one is asked again for fewer repositories.
	TokenBytes int
}

// Option configures a Client.
type Option func(*options)

type options struct {
	mirrors         map[string]Mirror
	credentials     map[string]Credentials
	keychain        authn.Keychain
	concurrency     int            // per host, overrides defaultConcurrency
	hostConcurrency map[string]int // per host as written
	maxRequests     int            // per host, 0: no budget
	hostMaxRequests map[string]int // per host as written
	transport       http.RoundTripper
	logger          *slog.Logger
	retryMax        int
	retryWait       time.Duration
	timeout         time.Duration
	deadAfter       int
	limits          Limits
	cache           *cache.Cache
	guardLocal      bool     // WithLocalHosts was given
	localHosts      []string // the local hosts allowed
}

func defaults() options {
	return options{
		keychain:  authn.DefaultKeychain,
		retryMax:  4,
		retryWait: 30 * time.Second,
		timeout:   25 * time.Second,
		deadAfter: 2,
		limits: Limits{
			PageBytes:     4 << 20,
			Pages:         1000,
			ManifestBytes: 4 << 20,
			BlobBytes:     8 << 20,
			TokenBytes:    7 << 10,
		},
	}
}

// WithMirrors fetches the repositories of a registry host ("docker.io",
// "ghcr.io", ...) from a mirror URL instead. One host has one scheme: two
// mirrors on one host, one http:// and one https://, are a configuration
// error (see Client.Err).
func WithMirrors(m map[string]string) Option {
	return func(o *options) {
		o.mirrors = make(map[string]Mirror, len(m))
		for host, u := range m {
			o.mirrors[host] = Mirror{URL: u}
		}
	}
}

// WithCredentials sets credentials per contacted host: the mirror's host
// when a registry is mirrored. Hosts without an entry use the keychain.
func WithCredentials(c map[string]Credentials) Option {
	return func(o *options) { o.credentials = c }
}

// WithKeychain replaces authn.DefaultKeychain for hosts that have no
// WithCredentials entry.
func WithKeychain(k authn.Keychain) Option {
	return func(o *options) { o.keychain = k }
}

// WithConcurrency sets the requests in flight per registry host for every
// host without a WithHostConcurrency entry, instead of the per-registry
// defaults (see defaultConcurrency).
func WithConcurrency(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.concurrency = n
		}
	}
}

// WithHostConcurrency sets the requests in flight per registry host
// ("docker.io", "quay.io", "127.0.0.1:5000"). An entry for a mirrored
// registry applies to its mirror unless the mirror's host has an entry of
// its own.
func WithHostConcurrency(m map[string]int) Option {
	return func(o *options) { o.hostConcurrency = m }
}

// WithMaxRequests gives every registry host a budget of n requests for the
// Client's life, retries and token requests included (0: none). Once it is
// spent, lookups on that host fail at once with an error wrapping
// ErrBudget, and the other hosts carry on.
func WithMaxRequests(n int) Option {
	return func(o *options) {
		if n >= 0 {
			o.maxRequests = n
		}
	}
}

// WithHostMaxRequests gives the registry hosts it names a budget of their
// own, instead of WithMaxRequests' (0: none), as WithHostConcurrency names
// hosts: an entry for a mirrored registry applies to its mirror unless the
// mirror's host has an entry of its own.
func WithHostMaxRequests(m map[string]int) Option {
	return func(o *options) { o.hostMaxRequests = m }
}

// WithTransport sets the base transport that carries every request.
func WithTransport(rt http.RoundTripper) Option {
	return func(o *options) { o.transport = rt }
}

// WithLogger sets where retries and failures are logged (default: nowhere).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithRetry sets how often a request that failed with 429, 5xx or a network
// error is retried (default 4) and the longest wait between two attempts
// (default 30s). A registry that asks with Retry-After for a longer wait
// than maxWait is not retried: its lookups fail at once.
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

// WithTimeout bounds each HTTP request, body included (default 25s). A host
// that lets two requests in a row go unanswered is down for the rest of the
// Client's life, so a dead registry costs about two timeouts, not one per
// image.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithLimits bounds bodies, pages and token scopes; zero fields keep their
// defaults.
func WithLimits(l Limits) Option {
	return func(o *options) {
		if l.PageBytes > 0 {
			o.limits.PageBytes = l.PageBytes
		}
		if l.Pages > 0 {
			o.limits.Pages = l.Pages
		}
		if l.ManifestBytes > 0 {
			o.limits.ManifestBytes = l.ManifestBytes
		}
		if l.BlobBytes > 0 {
			o.limits.BlobBytes = l.BlobBytes
		}
		if l.TokenBytes > 0 {
			o.limits.TokenBytes = l.TokenBytes
		}
	}
}

// WithLocalHosts guards this machine and its networks against registry
// names that whoever edits a manifest writes: a registry host that is
// "localhost" (or under .localhost) or an IP address that is loopback,
// link-local (169.254.0.0/16, the cloud metadata services), private
// (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10) or
// unspecified is contacted only when allowed names it (as the config
// does), or when it is a mirror's host. Any other such host fails its
// lookups with an error wrapping ErrLocalHost, without a request, and a
// redirect or token realm pointing to one is not followed. Without this
// option every host may be contacted.
func WithLocalHosts(allowed []string) Option {
	return func(o *options) { o.guardLocal, o.localHosts = true, allowed }
}

// WithCache keeps answers across runs in c: tags listings for c's TTL,
// refreshed with conditional requests; the digests tags resolved to, as
// long as their listing is fresh; manifests and blobs by digest for ever.
// A run whose answers are all in c sends no request at all. What a run
// learns is written when it calls Client.Flush.
func WithCache(c *cache.Cache) Option {
	return func(o *options) { o.cache = c }
}
