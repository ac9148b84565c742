package registry

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// tokenMeter measures the tokens a token service issues for a group of
// repositories and refuses one over max bytes: sent in the Authorization
// header of every later request, it would make the registry's front
// refuse them all (431, or 400 from nginx).
type tokenMeter struct {
	next  http.RoundTripper
	realm string // scheme://host/path of the token service
	max   int
	reuse *renewals
}

// tokenTooLarge is the error of a token over tokenMeter's max.
type tokenTooLarge struct{ size, max int }

func (e *tokenTooLarge) Error() string {
	return fmt.Sprintf("token of %d bytes is over the %d a header may carry", e.size, e.max)
}

func (m *tokenMeter) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	if m.reuse != nil && req.Response == nil && m.asksToken(req) {
		resp, err = m.reuse.do(req, m.next.RoundTrip)
	} else {
		resp, err = m.next.RoundTrip(req)
	}
	if err == nil && resp.StatusCode == http.StatusUnauthorized && m.reuse != nil {
		m.reuse.refused(req.Header.Get("Authorization"))
	}
	if err != nil || resp.StatusCode != http.StatusOK || m.realm == "" || !m.asksToken(req) {
		return resp, err
	}
	tok, _, err := readToken(resp)
	if err != nil {
		return nil, err
	}
	if n := len(tok.bearer()); n > m.max {
		return nil, &tokenTooLarge{size: n, max: m.max}
	}
	return resp, nil
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
