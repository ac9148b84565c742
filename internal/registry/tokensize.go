package registry

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// tokenMeter is the transport under go-containerregistry's bearer
// transport of a group of repositories. It does two things to the tokens
// the token service issues for the group, reading each answer once.
//
// It refuses a token over max bytes: sent in the Authorization header of
// every later request, it would make the registry's front refuse them all
// (431, or 400 from nginx).
//
// It answers the renewals of the group's token from the token just
// issued. go-containerregistry renews a token on every 401: when a shared
// token expires, each request queued with it (up to every repository of
// the group) is refused and asks a token naming the whole group, where
// one renewal serves them all. A token is reused for the same request
// (URL and credentials) while fresh: half its lifetime, at most maxReuse.
// A token the registry refused (401) is never reused: only the requests
// sent with an older one are answered so.
type tokenMeter struct {
	next  http.RoundTripper
	realm string // scheme://host/path of the token service
	max   int
	sem   chan struct{} // one token request of the group at a time
	mu    sync.Mutex
	last  *issued
}

// maxReuse bounds how long a token answers renewals: long enough for the
// requests queued behind an expiry to drain at a run's concurrency.
const maxReuse = 30 * time.Second

type issued struct {
	key    string
	token  string // as go-containerregistry sends it, after "Bearer "
	header http.Header
	body   []byte
	until  time.Time
}

func newTokenMeter(next http.RoundTripper, realm string, max int) *tokenMeter {
	return &tokenMeter{next: next, realm: realm, max: max, sem: make(chan struct{}, 1)}
}

// tokenTooLarge is the error of a token over tokenMeter's max.
type tokenTooLarge struct{ size, max int }

func (e *tokenTooLarge) Error() string {
	return fmt.Sprintf("token of %d bytes is over the %d a header may carry", e.size, e.max)
}

func (m *tokenMeter) RoundTrip(req *http.Request) (*http.Response, error) {
	if !m.asksToken(req) {
		return m.send(req)
	}
	if req.Response != nil {
		// Redirected by the token service: measured, not kept.
		resp, err := m.send(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			return resp, err
		}
		tok, _, err := readToken(resp)
		if err != nil {
			return nil, err
		}
		return resp, m.measure(tok.bearer())
	}
	select {
	case m.sem <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-m.sem }()
	key := req.URL.String() + "\n" + req.Header.Get("Authorization")
	m.mu.Lock()
	last := m.last
	m.mu.Unlock()
	if last != nil && last.key == key && time.Now().Before(last.until) {
		if err := m.measure(last.token); err != nil {
			return nil, err
		}
		return answer(req, http.StatusOK, last.header.Clone(), last.body), nil
	}
	resp, err := m.send(req)
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
	m.mu.Lock()
	m.last = &issued{key: key, token: tok.bearer(), header: resp.Header.Clone(), body: b, until: time.Now().Add(fresh)}
	m.mu.Unlock()
	return resp, m.measure(tok.bearer())
}

// send sends req and forgets the token kept if the registry refused a
// request that carried it (authorization as sent).
func (m *tokenMeter) send(req *http.Request) (*http.Response, error) {
	resp, err := m.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		auth := req.Header.Get("Authorization")
		m.mu.Lock()
		if m.last != nil && auth == "Bearer "+m.last.token {
			m.last = nil
		}
		m.mu.Unlock()
	}
	return resp, err
}

func (m *tokenMeter) measure(token string) error {
	if n := len(token); n > m.max {
		return &tokenTooLarge{size: n, max: m.max}
	}
	return nil
}

// tokenAnswer is what a token service answers, as far as we read it.
type tokenAnswer struct {
	Token       string `json:"token"`
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// bearer is the token go-containerregistry sends: access_token when there
// is one.
func (t tokenAnswer) bearer() string { return cmp.Or(t.AccessToken, t.Token) }

// readToken reads a token service's answer, returns it with its body, and
// puts the body back for go-containerregistry. An answer that is not JSON
// reads as no token: go-containerregistry reports it.
func readToken(resp *http.Response) (tokenAnswer, []byte, error) {
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return tokenAnswer{}, nil, err
	}
	var tok tokenAnswer
	json.Unmarshal(b, &tok)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return tok, b, nil
}

// asksToken tells a request to the token service, also when the service
// redirected it elsewhere: the token comes from where it was redirected.
func (m *tokenMeter) asksToken(req *http.Request) bool {
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	return req.URL.Scheme+"://"+req.URL.Host+req.URL.Path == m.realm
}
