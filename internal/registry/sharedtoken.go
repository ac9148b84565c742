package registry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// soloEvidence is how many repositories must have been refused with a
// shared token, and then served with a token of their own, before a run
// concludes that the host's token service grants one scope per token.
const soloEvidence = 2

// sharedToken is the transport of a group of repositories sharing a
// token. A token service may grant fewer scopes than a request names:
// some honour only the first scope parameter (cesanta/docker_auth did),
// so the other repositories' requests stay unauthorized however often
// the token is renewed. On a 401 that go-containerregistry's renewal did
// not cure, the repository leaves the group for a token of its own and
// the request goes again; after soloEvidence such cures the host asks one
// token per repository for the rest of the run (and, with a cache, the
// next runs).
type sharedToken struct {
	h    *host
	grp  *authGroup
	next http.RoundTripper // go-containerregistry's, with the group's token
}

// shareToken wraps a group's transport in a sharedToken that
// go-containerregistry takes as already authenticated: it wraps any
// other transport it is given in a handshake of its own, and the only way
// to make one it takes is NewWithContext, here over a local probe.
func (h *host) shareToken(ctx context.Context, grp *authGroup, next http.RoundTripper) (http.RoundTripper, error) {
	return transport.NewWithContext(ctx, h.registry(), authn.Anonymous, localProbe{&sharedToken{h: h, grp: grp, next: next}}, nil)
}

func (t *sharedToken) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.Body != http.NoBody) || req.URL.Host != t.h.name {
		return resp, err
	}
	path := t.repoOf(req.URL.Path)
	if path == "" {
		return resp, nil
	}
	// The refused answer is read now: until then its body holds one of
	// the host's request slots, and the token asked below needs one. With
	// every slot held so, the run would stall until the attempts time out.
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	t.h.authGroup.leave(t.grp, path)
	rt, aerr := t.h.authTransport(req.Context(), path)
	if aerr != nil {
		return resp, nil // the group's answer stands
	}
	again, err := rt.RoundTrip(req.Clone(req.Context()))
	if err == nil && again.StatusCode != http.StatusUnauthorized {
		t.h.authGroup.cured()
		t.h.c.log.Debug("repository refused with a shared token, served with its own", "host", t.h.name, "repository", path)
	}
	return again, err
}

// repoOf is the repository of the group a registry API path names
// ("/v2/acme/api/manifests/1.0" names "acme/api"), "" for none. The
// longest match wins: "acme/api/v2" is a repository of its own.
func (t *sharedToken) repoOf(p string) string {
	found := ""
	for _, r := range t.grp.repos {
		if len(r) > len(found) && strings.HasPrefix(p, "/v2/"+r+"/") {
			found = r
		}
	}
	return found
}

// leave takes path out of grp into a group of its own, unless a
// concurrent request moved it already.
func (g *authGroups) leave(grp *authGroup, path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byRepo[path] == grp {
		g.byRepo[path] = &authGroup{repos: []string{path}}
	}
}

// cured counts a repository that a token of its own served after a shared
// one did not; at soloEvidence the host's tokens name one repository each.
func (g *authGroups) cured() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.solos++
	if g.solos >= soloEvidence && g.fit != 1 {
		g.fit, g.unsaved = 1, true
	}
}
