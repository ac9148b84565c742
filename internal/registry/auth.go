package registry

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// maxTokenURL bounds the URL of a token request that names several
// repositories: 4,000 bytes stays under the smallest request-line limits
// common between a client and a token service (8 KiB in nginx and Apache,
// less in some proxies).
const maxTokenURL = 4000

// authGroups shares bearer tokens between repositories. go-containerregistry
// asks a token for one repository scope per transport; a token service
// accepts several scope parameters in one request, so repositories the
// Client was told to Expect are grouped (up to Limits.TokenScopes, within
// maxTokenURL) and each group costs one token request. The transport of a
// group is go-containerregistry's own bearer transport: when its token
// expires, the registry answers 401 and it asks a new token for every
// scope of the group at once.
type authGroups struct {
	mu      sync.Mutex
	byRepo  map[string]*authGroup
	pending []string // expected repositories not yet in a group, in order
	queued  map[string]bool
	shared  *authGroup // hosts without bearer tokens: one for all
}

type authGroup struct {
	repos []string
	rt    memo[http.RoundTripper]
}

// errSplit says a group's token request was refused: its repositories ask
// again one by one, so that one forbidden repository cannot fail the rest.
var errSplit = errors.New("token request for several repositories refused")

// expect queues repositories whose lookups are coming.
func (g *authGroups) expect(paths ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.queued == nil {
		g.queued = map[string]bool{}
	}
	for _, p := range paths {
		if !g.queued[p] && g.byRepo[p] == nil {
			g.queued[p] = true
			g.pending = append(g.pending, p)
		}
	}
}

// transportFor returns the authenticated transport for a repository path
// on h, building its group's transport (one token request) on first use.
func (h *host) transportFor(ctx context.Context, path string) (http.RoundTripper, error) {
	ans, err := h.ready(ctx)
	if err != nil {
		return nil, err
	}
	g := &h.authGroup
	for {
		grp := g.groupFor(h, ans, path)
		rt, err := grp.rt.get(ctx, "", func(ctx context.Context) (http.RoundTripper, error) {
			return h.authenticate(ctx, ans, grp.repos)
		})
		if errors.Is(err, errSplit) {
			g.split(grp)
			continue
		}
		return rt, err
	}
}

func (g *authGroups) groupFor(h *host, ans *pingAnswer, path string) *authGroup {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !strings.EqualFold(ans.challenge.Scheme, "bearer") {
		if g.shared == nil {
			g.shared = &authGroup{}
		}
		return g.shared
	}
	if grp := g.byRepo[path]; grp != nil {
		return grp
	}
	if g.byRepo == nil {
		g.byRepo = map[string]*authGroup{}
	}
	grp := &authGroup{repos: []string{path}}
	size := len(ans.challenge.Parameters["realm"]) + len("?service=") + len(url.QueryEscape(ans.challenge.Parameters["service"])) + scopeLen(path)
	for len(g.pending) > 0 && len(grp.repos) < h.c.o.limits.TokenScopes {
		p := g.pending[0]
		if g.byRepo[p] != nil || p == path {
			g.pending = g.pending[1:]
			continue
		}
		if size+scopeLen(p) > maxTokenURL {
			break
		}
		size += scopeLen(p)
		grp.repos = append(grp.repos, p)
		g.pending = g.pending[1:]
	}
	for _, r := range grp.repos {
		g.byRepo[r] = grp
	}
	return grp
}

func (g *authGroups) split(grp *authGroup) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range grp.repos {
		if g.byRepo[r] == grp {
			g.byRepo[r] = &authGroup{repos: []string{r}}
		}
	}
}

func scope(path string) string { return "repository:" + path + ":pull" }

func scopeLen(path string) int { return len("&scope=") + len(url.QueryEscape(scope(path))) }

// authenticate builds go-containerregistry's transport for repos: it pings
// (answered from the probe, no request) and, for a bearer challenge, asks
// one token for every repository of the group.
func (h *host) authenticate(ctx context.Context, ans *pingAnswer, repos []string) (http.RoundTripper, error) {
	scopes := make([]string, len(repos))
	for i, r := range repos {
		scopes[i] = scope(r)
	}
	rt, err := transport.NewWithContext(ctx, h.registry(), ans.auth, h.front, scopes)
	var te *transport.Error
	if err != nil && len(repos) > 1 && errors.As(err, &te) && te.StatusCode >= 400 && te.StatusCode < 500 && te.StatusCode != http.StatusUnauthorized {
		h.c.log.Debug("token for several repositories refused, asking one by one", "host", h.name, "repositories", len(repos), "error", err)
		return nil, errSplit
	}
	return rt, err
}

// hostKeychain resolves credentials for the host actually contacted:
// go-containerregistry asks per registry of the (mirrored) reference, so
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
