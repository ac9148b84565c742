package registry

import (
	"net/http"
	"sync"
	"time"
)

// renewals answers the renewals of a group's token from the token just
// issued. go-containerregistry renews a token on every 401: when a shared
// token expires, each request queued with it (up to every repository of
// the group) is refused and asks a token naming the whole group, where
// one renewal serves them all. A token is reused for the same request
// (URL and credentials) while fresh: half its lifetime, at most
// maxReuse.
type renewals struct {
	sem  chan struct{} // one token request of the group at a time
	mu   sync.Mutex
	last *issued
}

// A token the registry refused (401) is never reused: only the requests
// sent with an older one are answered so.
//
// maxReuse bounds how long a token answers renewals: long enough for the
// requests queued behind an expiry to drain at a run's concurrency.
const maxReuse = 30 * time.Second

type issued struct {
	key    string
	bearer string // "Bearer <token>", as go-containerregistry sends it
	header http.Header
	body   []byte
	until  time.Time
}

func newRenewals() *renewals { return &renewals{sem: make(chan struct{}, 1)} }

// do answers req from the fresh token of the same request, or sends it
// with send and keeps a token it brings.
func (r *renewals) do(req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	select {
	case r.sem <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-r.sem }()
	key := req.URL.String() + "\n" + req.Header.Get("Authorization")
	r.mu.Lock()
	last := r.last
	r.mu.Unlock()
	if last != nil && last.key == key && time.Now().Before(last.until) {
		return answer(req, http.StatusOK, last.header.Clone(), last.body), nil
	}
	resp, err := send(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	tok, b, err := readToken(resp)
	if err != nil {
		return nil, err
	}
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = 60 // the token specification's default
	}
	fresh := min(time.Duration(tok.ExpiresIn)*time.Second/2, maxReuse)
	r.mu.Lock()
	r.last = &issued{key: key, bearer: "Bearer " + tok.bearer(), header: resp.Header.Clone(), body: b, until: time.Now().Add(fresh)}
	r.mu.Unlock()
	return resp, nil
}

// refused forgets the token kept if the registry refused a request that
// carried it (authorization as sent).
func (r *renewals) refused(authorization string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last != nil && r.last.bearer == authorization {
		r.last = nil
	}
}
