package registry

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Client looks up tags, digests and image configs, each at most once per
// repository or tag for the Client's life. It is safe for concurrent use;
// make one per run so that a run sees one consistent registry.
type Client struct {
	puller  *remote.Puller
	err     error // from building the puller; returned by every call
	log     *slog.Logger
	mirrors map[string]mirror // registry host as name.Registry spells it
	stats   *stats

	tags    memo[[]string]
	digests memo[string]
	infos   memo[*Info]
}

// mirror is a parsed Mirror.
type mirror struct {
	host     string // "127.0.0.1:5000"
	prefix   string // "docker.io" or ""
	insecure bool   // http, because the URL says so
	err      error
}

// NewClient returns a Client. Configuration errors (a malformed mirror URL)
// surface on the first lookup that needs them.
func NewClient(opts ...Option) *Client {
	o := defaults()
	for _, opt := range opts {
		opt(&o)
	}
	c := &Client{
		log:     o.logger,
		mirrors: map[string]mirror{},
		stats:   &stats{},
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	schemes := map[string]string{}
	for host, m := range o.mirrors {
		pm := parseMirror(m)
		c.mirrors[canonicalHost(host)] = pm
		if pm.err == nil {
			schemes[pm.host] = "https"
			if pm.insecure {
				schemes[pm.host] = "http"
			}
		}
	}
	c.puller, c.err = remote.NewPuller(
		remote.WithTransport(newTransport(o, schemes, c.stats, c.log)),
		remote.WithAuthFromKeychain(hostKeychain{creds: canonicalCreds(o.credentials), fallback: o.keychain}),
		remote.WithUserAgent("imagebot"),
		// retryablehttp in our transport retries; go-containerregistry's own
		// retries on top would multiply the attempts (5 x 4 per request).
		remote.WithRetryPredicate(func(error) bool { return false }),
		remote.WithRetryStatusCodes(),
		remote.WithRetryBackoff(remote.Backoff{Steps: 1}),
	)
	return c
}

// Stats returns the requests sent so far per contacted host, sorted by host.
func (c *Client) Stats() []HostStats { return c.stats.snapshot() }

// repository maps a normalized repository name to the one actually
// contacted: the mirror's host and path prefix when its registry is mirrored.
func (c *Client) repository(repo string) (name.Repository, error) {
	if c.err != nil {
		return name.Repository{}, c.err
	}
	r, err := name.NewRepository(repo)
	if err != nil {
		return name.Repository{}, err
	}
	m, ok := c.mirrors[r.RegistryStr()]
	if !ok {
		return r, nil
	}
	if m.err != nil {
		return name.Repository{}, m.err
	}
	var nopts []name.Option
	if m.insecure {
		nopts = append(nopts, name.Insecure)
	}
	return name.NewRepository(path.Join(m.host, m.prefix, r.RepositoryStr()), nopts...)
}

// tag is repository plus a validated tag, and the cache key for it (the
// normalized name, so "nginx" and "docker.io/library/nginx" share answers).
func (c *Client) tag(repo, tag string) (name.Tag, string, error) {
	t, err := name.NewTag(repo + ":" + tag)
	if err != nil {
		return name.Tag{}, "", err
	}
	r, err := c.repository(repo)
	if err != nil {
		return name.Tag{}, "", err
	}
	return r.Tag(tag), t.Name(), nil
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
	return mirror{
		host:     u.Host,
		prefix:   strings.Trim(u.Path, "/"),
		insecure: u.Scheme == "http",
	}
}

// canonicalHost spells a registry host as name.Registry does, so that
// "docker.io" and "index.docker.io" are one host.
func canonicalHost(host string) string {
	r, err := name.NewRegistry(host)
	if err != nil {
		return host
	}
	return r.RegistryStr()
}

func canonicalCreds(in map[string]Credentials) map[string]Credentials {
	out := make(map[string]Credentials, len(in))
	for host, c := range in {
		out[canonicalHost(host)] = c
	}
	return out
}

// hostKeychain resolves credentials for the host actually contacted:
// go-containerregistry asks per repository of the (mirrored) reference, so
// an entry for one host is never offered to another.
type hostKeychain struct {
	creds    map[string]Credentials
	fallback authn.Keychain
}

func (k hostKeychain) Resolve(r authn.Resource) (authn.Authenticator, error) {
	if c, ok := k.creds[r.RegistryStr()]; ok {
		return authn.FromConfig(authn.AuthConfig{Username: c.Username, Password: c.Password}), nil
	}
	if k.fallback == nil {
		return authn.Anonymous, nil
	}
	return k.fallback.Resolve(r)
}
