package registry

import (
	"bytes"
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
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if json.Unmarshal(b, &tok) == nil {
		// go-containerregistry uses access_token when there is one.
		if n := max(len(tok.Token), len(tok.AccessToken)); n > m.max {
			return nil, &tokenTooLarge{size: n, max: m.max}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// asksToken tells a request to the token service, also when the service
// redirected it elsewhere: the token comes from where it was redirected.
func (m *tokenMeter) asksToken(req *http.Request) bool {
	for req.Response != nil && req.Response.Request != nil {
		req = req.Response.Request
	}
	return req.URL.Scheme+"://"+req.URL.Host+req.URL.Path == m.realm
}
