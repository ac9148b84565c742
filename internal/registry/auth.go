package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// maxTokenURL bounds the URL of a token request that names several
// repositories before any token service has refused one: 32 KiB, room for
// about 800 repositories. Fronts with smaller limits (nginx: 8 KiB by
// default) answer 414 or 431, and the run learns from that (see split).
const maxTokenURL = 32 << 10

// authGroups shares bearer tokens between repositories. go-containerregistry
// asks a token for one repository scope per transport; a token service
// accepts several scope parameters in one request, so the repositories
// the Client was told to Expect share one token request per host, within
// maxTokenURL. The transport of a group is go-containerregistry's own
// bearer transport: when its token expires, the registry answers 401 and
// it asks a new token for every scope of the group at once.
//
// Two limits are not known in advance, so they are learnt: how long a
// token request may be (a refusal with 413, 414 or 431 halves the groups
// for the rest of the run) and how large a token may grow (a token that
// lists an access entry per repository, as Docker Hub's JWTs do, rides in
// a header of every later request; over Limits.TokenBytes it is not used
// and the group is asked again in parts that fit). Any other refusal of a
// group (403 for one private repository among them) halves that group
// only, so that one forbidden repository cannot fail the rest.
type authGroups struct {
	mu      sync.Mutex
	byRepo  map[string]*authGroup
	pending []string // expected repositories not yet in a group, in order
	queued  map[string]bool
	shared  *authGroup  // hosts without bearer tokens: one for all
	fit     int         // repositories a token request may name, once learnt
	unsaved bool        // fit was learnt this run and not cached yet (Flush)
	solos   int         // repositories a shared token failed and their own served
	short   atomic.Bool // the token service answered a one-repository request
}

type authGroup struct {
	repos []string
	rt    memo[http.RoundTripper]
}

// splitError says a group's token request was refused or its token was too
// large: its repositories ask again in groups of at most size. hostWide
// says the limit holds for every group of the host, not only this one.
type splitError struct {
	size     int
	hostWide bool
	guess    bool // learnt from a failure that may have another cause: not cached
	cause    error
}

func (e *splitError) Error() string {
	return fmt.Sprintf("token for several repositories refused, asking for %d at a time: %v", e.size, e.cause)
}

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

// authTransport returns the authenticated transport for a repository
// path on h, building its group's transport (one token request) on first
// use.
func (h *host) authTransport(ctx context.Context, path string) (http.RoundTripper, error) {
	ans, err := h.ready(ctx)
	if err != nil {
		return nil, err
	}
	g := &h.authGroup
	for {
		grp := g.groupFor(ans, path)
		rt, err := grp.rt.get(ctx, "", func(ctx context.Context) (http.RoundTripper, error) {
			return h.authenticate(ctx, ans, grp)
		})
		var se *splitError
		if errors.As(err, &se) {
			g.split(grp, se)
			continue
		}
		return rt, err
	}
}

// recall starts the run with what an earlier run learnt of the host
// (WithCache), so that only the first run pays for the refusals.
func (h *host) recall() {
	if cc := h.c.o.cache; cc != nil {
		if l, ok := cc.HostLimits(h.name); ok {
			h.authGroup.fit = l.TokenScopes
		}
	}
}

// remember keeps what this run learnt of the host for the next ones.
func (h *host) remember(cc *cache.Cache) {
	g := &h.authGroup
	g.mu.Lock()
	fit, unsaved := g.fit, g.unsaved
	g.unsaved = false
	g.mu.Unlock()
	if !unsaved {
		return
	}
	if err := cc.PutHostLimits(cache.HostLimits{Host: h.name, TokenScopes: fit, Learnt: cc.Now()}); err != nil {
		h.c.log.Debug("host limits not cached", "host", h.name, "error", err)
	}
}

func (g *authGroups) groupFor(ans *pingAnswer, path string) *authGroup {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !strings.EqualFold(ans.challenge.Scheme, "bearer") {
		if g.shared == nil {
			g.shared = &authGroup{}
		}
		return g.shared
	}
	if grp := g.byRepo[path]; grp != nil {
		if g.fit > 0 && len(grp.repos) > g.fit {
			// Formed, or even used, before the limit was learnt.
			g.chunk(grp, g.fit)
			return g.byRepo[path]
		}
		return grp
	}
	if g.byRepo == nil {
		g.byRepo = map[string]*authGroup{}
	}
	grp := &authGroup{repos: []string{path}}
	size := len(ans.challenge.Parameters["realm"]) + len("?service=") + len(url.QueryEscape(ans.challenge.Parameters["service"])) + scopeLen(path)
	for len(g.pending) > 0 && (g.fit == 0 || len(grp.repos) < g.fit) {
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

// split puts the repositories of a refused group in groups of se.size.
// Every caller waiting on grp calls it; the first one does the work.
func (g *authGroups) split(grp *authGroup, se *splitError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if se.hostWide && (g.fit == 0 || se.size < g.fit) {
		g.fit = se.size
		g.unsaved = g.unsaved || !se.guess
	}
	g.chunk(grp, se.size)
}

// chunk puts the repositories still in grp in new groups of size.
func (g *authGroups) chunk(grp *authGroup, size int) {
	var left []string
	for _, r := range grp.repos {
		if g.byRepo[r] == grp {
			left = append(left, r)
		}
	}
	for part := range slices.Chunk(left, max(size, 1)) {
		ng := &authGroup{repos: part}
		for _, r := range part {
			g.byRepo[r] = ng
		}
	}
}

func scope(path string) string { return "repository:" + path + ":pull" }

func scopeLen(path string) int { return len("&scope=") + len(url.QueryEscape(scope(path))) }

// authenticate builds go-containerregistry's transport for repos: it pings
// (answered from the probe, no request) and, for a bearer challenge, asks
// one token for every repository of the group.
func (h *host) authenticate(ctx context.Context, ans *pingAnswer, grp *authGroup) (http.RoundTripper, error) {
	repos := grp.repos
	scopes := make([]string, len(repos))
	for i, r := range repos {
		scopes[i] = scope(r)
	}
	if len(repos) == 1 {
		return transport.NewWithContext(ctx, h.registry(), ans.auth, h.front, scopes)
	}
	next := newTokenMeter(h.front, h.realm(), h.c.o.limits.TokenBytes)
	rt, err := transport.NewWithContext(withSharedToken(ctx), h.registry(), ans.auth, next, scopes)
	if err == nil {
		return h.shareToken(ctx, grp, rt)
	}
	return nil, h.refused(ctx, ans, grp, err)
}

// refused turns the failed token request of a group into the splitError
// that makes its repositories ask again in smaller groups, or into the
// error that stands for the whole group.
func (h *host) refused(ctx context.Context, ans *pingAnswer, grp *authGroup, err error) error {
	n := len(grp.repos)
	var big *tokenTooLarge
	if errors.As(err, &big) {
		// A token grows with each repository it names: ask for as many as
		// fit, with a tenth to spare for what every token carries.
		fit := min(max(n*big.max/big.size*9/10, 1), n-1)
		h.c.log.Debug("token for several repositories too large", "host", h.name, "repositories", n, "bytes", big.size, "asking for", fit)
		return &splitError{size: fit, hostWide: true, cause: err}
	}
	var te *transport.Error
	if errors.As(err, &te) && te.StatusCode >= 400 && te.StatusCode < 500 &&
		te.StatusCode != http.StatusUnauthorized && te.StatusCode != http.StatusTooManyRequests {
		tooLong := te.StatusCode == http.StatusRequestEntityTooLarge || te.StatusCode == http.StatusRequestURITooLong ||
			te.StatusCode == http.StatusRequestHeaderFieldsTooLarge
		h.c.log.Debug("token for several repositories refused", "host", h.name, "repositories", n, "error", err, "asking for", (n+1)/2)
		return &splitError{size: (n + 1) / 2, hostWide: tooLong, cause: err}
	}
	if !mayBeLength(ctx, err) {
		return &groupTokenError{n: n, realm: h.realm(), err: err}
	}
	// A front may answer a request it finds too long with a 5xx, a reset
	// or silence rather than 414. Whether the token service is down or
	// only the length was refused, one request of one repository tells
	// (retried and counted toward the host's health, as any other); once
	// it was answered, the run halves its groups on such failures.
	if !h.authGroup.short.Load() {
		if _, perr := transport.NewWithContext(ctx, h.registry(), ans.auth, h.front, []string{scope(grp.repos[0])}); perr != nil {
			return &groupTokenError{n: n, realm: h.realm(), err: perr}
		}
		h.authGroup.short.Store(true)
	}
	h.c.log.Debug("token for several repositories failed", "host", h.name, "repositories", n, "error", err, "asking for", (n+1)/2)
	return &splitError{size: (n + 1) / 2, hostWide: true, guess: true, cause: err}
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
