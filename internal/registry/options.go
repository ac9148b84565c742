package registry

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
)

// Mirror is where the repositories of one registry host are fetched from
// instead. URL is "https://mirror.example.com" or, spelled out explicitly,
// "http://127.0.0.1:5000/some/prefix"; a path is prepended to every
// repository path.
type Mirror struct{ URL string }

// Credentials authenticate against one registry host.
type Credentials struct{ Username, Password string }

// Option configures a Client.
type Option func(*options)

type options struct {
	mirrors     map[string]Mirror
	credentials map[string]Credentials
	keychain    authn.Keychain
	concurrency int
	transport   http.RoundTripper
	logger      *slog.Logger
	retryMax    int
	retryWait   time.Duration
	timeout     time.Duration
}

func defaults() options {
	return options{
		keychain:    authn.DefaultKeychain,
		concurrency: 8,
		retryMax:    4,
		retryWait:   30 * time.Second,
		timeout:     30 * time.Second,
	}
}

// WithMirrors fetches the repositories of a registry host ("docker.io",
// "ghcr.io", ...) from a mirror URL instead.
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

// WithConcurrency bounds the number of HTTP requests in flight (default 8).
func WithConcurrency(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.concurrency = n
		}
	}
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
// (default 30s), which also caps a registry's Retry-After.
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

// WithTimeout bounds each HTTP request, body included (default 30s).
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}
