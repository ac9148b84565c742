// Package fetch is the guarded HTTP client of the lookups that a scanned
// file can point anywhere: chart repositories' indexes (chartrepo) and
// git repositories' ref advertisements and release assets (gitsource).
// Its rules are theirs alike, written once: credentials to their own
// scheme and host alone (those written in the URL first, then the
// config's for the host), hosts on this machine or its networks only when
// the config names them (by spelling, and by the address dialled through
// localnet's guard), redirects at most 10, without a loop, never from
// https to http, each one guarded; retries by internal/retry, failing at
// once a Retry-After longer than the client waits; bodies capped; every
// request counted by host.
package fetch

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// Credentials authenticate against one host, as HTTP basic auth.
type Credentials struct{ Username, Password string }

// Settings are what every guarded client is configured with.
type Settings struct {
	Credentials map[string]Credentials // by host ("charts.example.com", "127.0.0.1:8080")
	Cache       *cache.Cache
	MaxBytes    int64         // one body at most
	Timeout     time.Duration // what one repository may cost
	RetryMax    int
	RetryWait   time.Duration
	Transport   http.RoundTripper // the base under the retries
	Logger      *slog.Logger
	GuardLocal  bool            // WithLocalHosts was given
	LocalHosts  map[string]bool // the local hosts allowed, in lower case
}

// Options are a client's Settings and its own options (X).
type Options[X any] struct {
	Settings
	Own X
}

// Option configures a client whose own options are X: chartrepo and
// gitsource name theirs Option, and these With* functions theirs too.
type Option[X any] func(*Options[X])

// Defaults are the Settings every client starts from: one minute per
// repository, 4 retries waiting at most 30s, bodies of maxBytes at most.
func Defaults[X any](maxBytes int64, own X) Options[X] {
	return Options[X]{Settings: Settings{MaxBytes: maxBytes, Timeout: time.Minute, RetryMax: 4, RetryWait: 30 * time.Second}, Own: own}
}

// WithCredentials sets credentials per host ("charts.example.com",
// "127.0.0.1:8080"): sent to that host alone.
func WithCredentials[X any](c map[string]Credentials) Option[X] {
	return func(o *Options[X]) { o.Credentials = c }
}

// WithCache keeps answers across runs in c, asked again after c's TTL.
func WithCache[X any](c *cache.Cache) Option[X] { return func(o *Options[X]) { o.Cache = c } }

// WithMaxBytes caps what one answer may weigh.
func WithMaxBytes[X any](n int64) Option[X] {
	return func(o *Options[X]) {
		if n > 0 {
			o.MaxBytes = n
		}
	}
}

// WithTimeout bounds what one repository may cost: its requests, retries,
// redirects and bodies all included (default 1 minute).
func WithTimeout[X any](d time.Duration) Option[X] {
	return func(o *Options[X]) {
		if d > 0 {
			o.Timeout = d
		}
	}
}

// WithRetry sets how often a request failed with 429, 5xx or a network
// error is tried again (default 4) and the longest wait between two
// attempts (default 30s), as the registry client's WithRetry: a
// Retry-After longer than maxWait fails the repository at once.
func WithRetry[X any](max int, maxWait time.Duration) Option[X] {
	return func(o *Options[X]) {
		if max >= 0 {
			o.RetryMax = max
		}
		if maxWait > 0 {
			o.RetryWait = maxWait
		}
	}
}

// WithTransport sets the base transport under the retries.
func WithTransport[X any](rt http.RoundTripper) Option[X] {
	return func(o *Options[X]) { o.Transport = rt }
}

// WithLocalHosts guards this machine and its networks (localnet.Is): a
// host there, or a redirect there, is refused without a request unless it
// ("127.0.0.1:8080") is among allowed, as the registry client's
// WithLocalHosts refuses a local registry a manifest names.
func WithLocalHosts[X any](allowed []string) Option[X] {
	return func(o *Options[X]) {
		o.GuardLocal, o.LocalHosts = true, map[string]bool{}
		for _, h := range allowed {
			o.LocalHosts[strings.ToLower(h)] = true
		}
	}
}

// WithLogger sets where retries are logged (default: nowhere).
func WithLogger[X any](l *slog.Logger) Option[X] { return func(o *Options[X]) { o.Logger = l } }
