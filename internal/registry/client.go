package registry

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/localnet"
)

// Client looks up tags, digests and image configs, each at most once per
// repository or tag for the Client's life. It is safe for concurrent use;
// make one per run so that a run sees one consistent registry, and so
// that a host that proved dead, or a spent budget, is forgotten by the
// next run.
type Client struct {
	o           options
	err         error // configuration error; returned by every call
	log         *slog.Logger
	base        http.RoundTripper
	keychain    hostKeychain
	mirrors     map[string]mirror // registry host as name.Registry spells it
	schemes     map[string]string // mirror host -> the one scheme it is spoken to with
	concurrency map[string]int    // contacted host -> requests in flight
	budgets     map[string]int    // contacted host -> requests allowed (0: no budget)
	// allowedLocal are the local hosts that may be contacted (WithLocalHosts).
	allowedLocal map[string]bool

	mu    sync.Mutex
	hosts map[string]*host

	tags    memo[[]string]
	digests memo[string] // by route key and tag
	listed  listings     // what WithCache's cache holds for this run
	// revalidate are the route keys whose cached listing is asked again
	// however fresh (Revalidate).
	revalidate sync.Map

	// By route key and digest, except tagManifests (by tag): what the
	// gates, signature checks and PR bodies read, each fetched once.
	manifests    memo[*manifest]
	tagManifests memo[*manifest]
	configs      memo[*imageConfig]
	blobs        memo[[]byte]
	referrers    memo[[]byte]
	present      memo[bool]
}

// mirror is a parsed Mirror.
type mirror struct {
	host   string // "127.0.0.1:5000"
	prefix string // "docker.io" or ""
	scheme string // "http" only when the URL says so
	err    error
}

// NewClient returns a Client. A configuration error (a malformed mirror
// URL, one host named with two schemes) is returned by Err and by every
// lookup that needs the configuration.
func NewClient(opts ...Option) *Client {
	o := defaults()
	for _, opt := range opts {
		opt(&o)
	}
	c := &Client{
		o:           o,
		log:         o.logger,
		base:        o.transport,
		keychain:    hostKeychain{creds: canonicalCreds(o.credentials), fallback: o.keychain},
		mirrors:     map[string]mirror{},
		schemes:     map[string]string{},
		concurrency: map[string]int{},
		budgets:     map[string]int{},
		hosts:       map[string]*host{},
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.err = c.parseMirrors(o.mirrors)
	c.allowedLocal = c.localAllowed()
	if c.base == nil && o.guardLocal {
		// The guard on the address dialled: a name that resolves to this
		// machine or its networks is refused as its spelling would be.
		c.base = localnet.NewGuard(slices.Collect(maps.Keys(c.allowedLocal))).Transport(baseTransport())
	}
	if c.base == nil {
		c.base = baseTransport()
	}
	c.perHost(c.concurrency, o.hostConcurrency, 1)
	c.perHost(c.budgets, o.hostMaxRequests, 0)
	return c
}

// perHost fills dst, keyed by contacted host, from per-registry values of
// at least least: a mirrored registry's value goes to its mirror too,
// unless the mirror's host has a value of its own.
func (c *Client) perHost(dst, values map[string]int, least int) {
	for h, n := range values {
		if n < least {
			continue
		}
		if m, ok := c.mirrors[canonicalHost(h)]; ok && m.err == nil {
			if _, own := dst[m.host]; !own {
				dst[m.host] = n
			}
		}
		dst[canonicalHost(h)] = n
	}
}

// parseMirrors fills c.mirrors and c.schemes and refuses one host with two
// schemes: a per-host scheme decides how a host is spoken to, and with two
// the last written would win at random, sending an https mirror's requests
// over plain http.
func (c *Client) parseMirrors(in map[string]Mirror) error {
	regs := make([]string, 0, len(in))
	for r := range in {
		regs = append(regs, r)
	}
	slices.Sort(regs)
	setBy := map[string]string{}
	for _, reg := range regs {
		pm := parseMirror(in[reg])
		c.mirrors[canonicalHost(reg)] = pm
		if pm.err != nil {
			continue
		}
		if prev, ok := c.schemes[pm.host]; ok && prev != pm.scheme {
			return fmt.Errorf("mirrors of %s (%s://%s) and %s (%s://%s) are one host with two schemes; one host has one scheme: write both with https:// (or both with http://)",
				setBy[pm.host], prev, pm.host, reg, pm.scheme, pm.host)
		}
		c.schemes[pm.host], setBy[pm.host] = pm.scheme, reg
	}
	return nil
}

// Err returns the Client's configuration error, if any. Every lookup
// returns it too; callers check it to fail at start-up.
func (c *Client) Err() error { return c.err }

// Expect tells the Client which repositories it is about to be asked
// about, so that a registry with bearer tokens is asked one token for many
// repositories instead of one each. It is a hint: lookups of other
// repositories work as well.
func (c *Client) Expect(repos ...name.Repository) {
	byHost := map[*host][]string{}
	for _, repo := range repos {
		if rt, err := c.route(repo); err == nil {
			byHost[rt.h] = append(byHost[rt.h], rt.path)
		}
	}
	for h, paths := range byHost {
		h.authGroup.expect(paths...)
	}
}

// route is where a repository is looked up: a host and the repository's
// path there (with a mirror's prefix).
type route struct {
	h    *host
	path string
}

func (r route) key() string { return r.h.name + "/" + r.path }

// route maps a parsed repository to the host and path actually
// contacted: the mirror's when its registry is mirrored. The name was
// parsed once, where it was read (internal/scan); route only looks it up.
func (c *Client) route(repo name.Repository) (route, error) {
	if c.err != nil {
		return route{}, c.err
	}
	// A name parsed elsewhere than by imagename may still say
	// registry-1.docker.io: it is Docker Hub all the same.
	reg, p := imagename.CanonicalHost(repo.RegistryStr()), repo.RepositoryStr()
	if reg == "" || p == "" {
		return route{}, errors.New("no repository named")
	}
	m, ok := c.mirrors[reg]
	if !ok {
		if err := c.checkLocal(reg, reg); err != nil {
			return route{}, err
		}
		return route{h: c.host(reg), path: p}, nil
	}
	if m.err != nil {
		return route{}, m.err
	}
	return route{h: c.host(m.host), path: path.Join(m.prefix, p)}, nil
}

// host returns the one host object of a contacted host. Its scheme is the
// mirror's when a mirror names the host, else https (with a probe of http
// for loopback hosts only).
func (c *Client) host(name string) *host {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.hosts[name]; ok {
		return h
	}
	var h *host
	if s, ok := c.schemes[name]; ok {
		h = c.newHost(name, s, false)
	} else {
		h = c.newHost(name, "https", isLoopback(name))
	}
	c.hosts[name] = h
	return h
}

func parseMirror(m Mirror) mirror {
	u, err := url.Parse(m.URL)
	switch {
	case err != nil:
		// url.Error quotes the URL, which may hold a password.
		return mirror{err: fmt.Errorf("mirror URL: %w", errors.Unwrap(err))}
	case u.Scheme != "http" && u.Scheme != "https":
		return mirror{err: fmt.Errorf("mirror %s: scheme must be http or https", u.Redacted())}
	case u.Host == "":
		return mirror{err: fmt.Errorf("mirror %s: no host", u.Redacted())}
	case u.User != nil:
		return mirror{err: fmt.Errorf("mirror %s: credentials belong in WithCredentials, not the URL", u.Redacted())}
	case u.RawQuery != "" || u.Fragment != "":
		return mirror{err: fmt.Errorf("mirror %s: query and fragment are not allowed", u.Redacted())}
	}
	if _, err := name.NewRegistry(u.Host); err != nil {
		return mirror{err: fmt.Errorf("mirror %s: %w", u.Redacted(), err)}
	}
	return mirror{host: u.Host, prefix: strings.Trim(u.Path, "/"), scheme: u.Scheme}
}

// canonicalHost spells a registry host as name.Registry does, so that
// Docker Hub's names ("docker.io", "index.docker.io",
// "registry-1.docker.io") are one host: one mirror, one set of
// credentials, one cache.
func canonicalHost(host string) string {
	r, err := name.NewRegistry(host)
	if err != nil {
		return host
	}
	return imagename.CanonicalHost(r.RegistryStr())
}

func canonicalCreds(in map[string]Credentials) map[string]Credentials {
	out := make(map[string]Credentials, len(in))
	for host, c := range in {
		out[canonicalHost(host)] = c
	}
	return out
}
