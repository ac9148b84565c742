package azure

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// apiVersion is the REST version every request names: Azure DevOps
// refuses a request without one, and 7.1 is the newest released on both
// Services and Server 2022.1.
const apiVersion = "7.1"

// client is Azure DevOps' REST API at one collection URL
// ("https://dev.azure.com/org", "https://host/tfs/DefaultCollection").
type client struct {
	base  string
	hc    *http.Client
	token forge.StaticToken
	clock forge.Clock
}

// bearer reports whether the token is an Azure Pipelines job token
// (System.AccessToken, a JWT: three dot-separated parts), sent as Bearer;
// a PAT is sent as Basic with an empty user.
func (c *client) bearer() bool { return strings.Count(string(c.token), ".") == 2 }

// seg escapes one path segment: project names hold spaces.
func seg(s string) string { return url.PathEscape(s) }

// do sends method to base+path with q (api-version added), in as its JSON
// body, and decodes the answer into out; it returns the answer's headers.
func (c *client) do(ctx context.Context, method, base, path string, q url.Values, in, out any) (http.Header, error) {
	if q == nil {
		q = url.Values{}
	}
	q.Set("api-version", apiVersion)
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path+"?"+q.Encode(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "imagebot")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.bearer() {
		req.Header.Set("Authorization", "Bearer "+string(c.token))
	} else if c.token != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(":"+string(c.token))))
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.token.Scrub(err)
	}
	defer resp.Body.Close()
	if err := c.refusal(resp); err != nil {
		return resp.Header, err
	}
	if out != nil {
		if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out); err != nil {
			return resp.Header, fmt.Errorf("read the answer: %w", err)
		}
	}
	return resp.Header, nil
}

// refusal is resp as a shared error, nil for a 2xx with JSON. Azure DevOps
// Services answers a request whose credentials it does not take with its
// sign-in page, a 203: that is a 401 here. A 429, or a 403 with
// Retry-After, that the retrying client did not wait out is a rate limit.
func (c *client) refusal(resp *http.Response) error {
	if resp.StatusCode == http.StatusNonAuthoritativeInfo || (resp.StatusCode < 300 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")) {
		return &forge.HTTPError{Status: http.StatusUnauthorized, Err: errors.New("the sign-in page: Azure DevOps did not take the token")}
	}
	if resp.StatusCode < 300 {
		return nil
	}
	var e struct {
		Message string `json:"message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &e) == nil && e.Message != "" {
		msg = e.Message
	}
	if msg == "" {
		msg = resp.Status
	}
	he := &forge.HTTPError{Status: resp.StatusCode, Err: c.token.Scrub(errors.New(msg))}
	now := time.Now()
	if c.clock != nil {
		now = c.clock.Now()
	}
	if _, limited := forge.RateLimitWait(resp, now); limited {
		return &forge.RateLimitError{Err: he}
	}
	return he
}

// status is the HTTP status of an Azure DevOps refusal, 0 for none.
func status(err error) int {
	var he *forge.HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}
