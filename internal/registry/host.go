package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/imagebot/imagebot/internal/retry"
)

// ErrBudget is wrapped by the errors of lookups on a host whose request
// budget (WithMaxRequests, WithHostMaxRequests) is spent.
var ErrBudget = errors.New("not looked up: budget")

// defaultConcurrency is how many requests imagebot keeps in flight per
// registry host unless WithConcurrency or WithHostConcurrency say
// otherwise. The evidence, as of 2025:
//   - Docker Hub documents pull limits per hour (a pull is a manifest GET;
//     tags listings and HEADs are not pulls) and an abuse limit of
//     "thousands of requests per minute" answered with 429, no concurrency
//     limit.
//   - GHCR documents no limit (github/docs#24504); a 429 observed on it
//     said "allowed: 2000/minute" (chainguard-images/images#173).
//   - Quay.io allows "a few requests per second per IP, with some
//     bursting" (Red Hat solution 6218921) and has blocked IPs of tools
//     listing many tags (argocd-image-updater#108): 4.
//   - Renovate sends at most 16 requests at once per host
//     (lib/util/http/rate-limits.ts); Flux's image-reflector-controller
//     lists 4 repositories at once (--concurrent 4); Argo CD Image Updater
//     and Kargo limit each registry to 20 requests per second.
//
// 8 in flight is 80-160 requests per second at the 50-100 ms of a
// registry across the internet: under Docker Hub's abuse limit for a
// run's few hundred requests, between Flux and Renovate, and enough to
// keep a run at the round-trip bound.
var defaultConcurrency = map[string]int{"quay.io": 4, "": 8}

// host is one registry host as contacted (the mirror's host when a
// registry is mirrored). It owns what is per host, not per repository:
// the scheme, decided once; the one /v2/ probe of a run; the bearer tokens,
// shared by many repositories; the request slots; the budget; and the
// host's health, so that once it has proven dead every later lookup on it
// fails at once.
type host struct {
	name      string // "index.docker.io", "127.0.0.1:5000"
	scheme    string // "https" or "http"; written only by the probe
	probe     bool   // loopback without a mirror: https, else http
	c         *Client
	sem       chan struct{}
	budget    int64
	spent     atomic.Int64
	stats     hostStats
	inner     http.RoundTripper // breaker -> retries -> attempts -> base
	front     http.RoundTripper // what go-containerregistry is given
	pinged    memo[*pingAnswer]
	realmURL  atomic.Pointer[string] // the token service's, for Stats
	authGroup authGroups
	health    health
}

// pingAnswer is what GET /v2/ answered: replayed to go-containerregistry,
// which pings once per repository scope, so that a run probes each host
// once.
type pingAnswer struct {
	status    int
	header    http.Header
	challenge *transport.Challenge
	auth      authn.Authenticator
}

func (c *Client) newHost(name, scheme string, probe bool) *host {
	n := c.o.concurrency
	if v, ok := c.concurrency[name]; ok {
		n = v
	}
	if n <= 0 {
		n = defaultConcurrency[name]
	}
	if n <= 0 {
		n = defaultConcurrency[""]
	}
	budget := c.o.maxRequests
	if v, ok := c.budgets[name]; ok {
		budget = v
	}
	h := &host{name: name, scheme: scheme, probe: probe, c: c, sem: make(chan struct{}, n), budget: int64(budget)}
	h.inner = &breaker{h: h, next: newRetrier(c.o, &attempt{h: h, next: c.base}, c.log.With("host", name))}
	h.front = transport.NewUserAgent(&front{h: h, next: h.inner}, "imagebot")
	h.recall()
	return h
}

// isLoopback tells the hosts that may speak plain http without a mirror
// saying so, as Docker allows 127.0.0.0/8 by default: nothing else is ever
// contacted over http unless configured.
func isLoopback(hostport string) bool {
	h := hostport
	if sh, _, err := net.SplitHostPort(hostport); err == nil {
		h = sh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// registry is the host as go-containerregistry names it.
func (h *host) registry() name.Registry {
	var opts []name.Option
	if h.scheme == "http" {
		opts = append(opts, name.Insecure)
	}
	r, _ := name.NewRegistry(h.name, opts...) // validated when the host was made
	return r
}

// repo is a repository on this host.
func (h *host) repo(path string) name.Repository { return h.registry().Repo(path) }

func (h *host) realm() string {
	if r := h.realmURL.Load(); r != nil {
		return *r
	}
	return ""
}

// ready probes the host once per Client: the scheme, the kind of
// authentication it wants, and whether it answers at all. A host that
// does not answer fails every lookup at once for the rest of the run.
func (h *host) ready(ctx context.Context) (*pingAnswer, error) {
	ans, err := h.pinged.get(ctx, "", h.ping)
	if err != nil {
		return nil, err
	}
	return ans, h.blocked()
}

func (h *host) ping(ctx context.Context) (*pingAnswer, error) {
	ans, err := h.pingScheme(ctx, h.scheme)
	if err != nil && h.probe {
		h.c.log.Debug("https probe failed, trying http", "host", h.name, "error", err)
		if ans, err = h.pingScheme(ctx, "http"); err == nil {
			h.scheme = "http"
		}
	}
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", h.name, err)
	}
	// go-containerregistry parses the challenge from the replayed answer.
	ch, err := transport.Ping(ctx, h.registry(), replay{h, ans})
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", h.name, err)
	}
	ans.challenge = ch
	if strings.EqualFold(ch.Scheme, "bearer") {
		if u, err := url.Parse(ch.Parameters["realm"]); err == nil {
			realm := u.Scheme + "://" + u.Host + u.Path
			h.realmURL.Store(&realm)
		}
	}
	if ans.auth, err = authn.Resolve(ctx, h.c.keychain, h.registry()); err != nil {
		return nil, fmt.Errorf("credentials for %s: %w", h.name, err)
	}
	return ans, nil
}

func (h *host) pingScheme(ctx context.Context, scheme string) (*pingAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+h.name+"/v2/", nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.inner.RoundTrip(req)
	if errors.Is(err, http.ErrSchemeMismatch) {
		// net/http's words name neither the host nor the cure.
		return nil, fmt.Errorf("GET %s: %s answers in plain http, not https: if that is intended, write http:// explicitly in the mirror URL that names it "+
			"(registries.HOST.mirror or --mirror; for a registry without a mirror, mirror: http://%s); imagebot never falls back to http by itself (%w)",
			redact(req.URL), h.name, h.name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", redact(req.URL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnauthorized {
		return nil, transport.CheckError(resp, http.StatusOK, http.StatusUnauthorized)
	}
	io.Copy(io.Discard, resp.Body) // keeps the connection for what follows
	return &pingAnswer{status: resp.StatusCode, header: resp.Header.Clone()}, nil
}

// replay answers GET /v2/ from the probe's answer.
type replay struct {
	h   *host
	ans *pingAnswer
}

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.URL.Scheme = r.h.scheme
	return answer(out, r.ans.status, r.ans.header.Clone(), nil), nil
}

// permanent marks errors that retrying cannot heal.
type permanent = retry.Permanent

// acquire waits for a request slot and returns its release.
func (h *host) acquire(ctx context.Context) (func(), error) {
	select {
	case h.sem <- struct{}{}:
		return sync.OnceFunc(func() { <-h.sem }), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
