package bitbucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// client is Bitbucket Cloud's REST API 2.0 at base ("https://api.bitbucket.org/2.0").
type client struct {
	base  *url.URL
	http  *http.Client // retrying, scrubbing
	user  string       // the Atlassian account's e-mail; "" sends the token as Bearer (Data Center)
	token forge.StaticToken
	// header is called with each answer's headers (Data Center's
	// X-AUSERNAME says who the token is); nil for none.
	header func(http.Header)
}

// apiError is Bitbucket's error body: Cloud's
// {"type":"error","error":{"message":…}}, Data Center's
// {"errors":[{"message":…,"exceptionName":…}]}.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Detail  string `json:"detail"`
	} `json:"error"`
	Errors []struct {
		Message  string          `json:"message"`
		Existing json.RawMessage `json:"existingPullRequest"`
	} `json:"errors"`
}

// dcError is a Data Center refusal with the existing pull request a
// duplicate's 409 carries.
type dcError struct {
	*forge.HTTPError
	existing json.RawMessage
}

// do sends method to ref (a path under base, "repositories/ws/r", or an
// absolute URL on the API's origin, a next link) with in as JSON, and
// decodes the answer into out. A refusal is a *forge.HTTPError with
// Bitbucket's message; a 429 the retrying client did not wait out is a
// *forge.RateLimitError.
func (c *client) do(ctx context.Context, method, ref string, query url.Values, in, out any) error {
	u, err := c.resolve(ref)
	if err != nil {
		return err
	}
	if query != nil {
		u.RawQuery = query.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	if c.user != "" {
		req.SetBasicAuth(c.user, string(c.token))
	} else {
		req.Header.Set("Authorization", "Bearer "+string(c.token))
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.token.Scrub(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return c.token.Scrub(err)
	}
	if c.header != nil {
		c.header(resp.Header)
	}
	if resp.StatusCode >= 300 {
		var ae apiError
		msg := resp.Status
		var existing json.RawMessage
		if json.Unmarshal(data, &ae) == nil {
			switch {
			case ae.Error.Message != "":
				msg = ae.Error.Message
				if ae.Error.Detail != "" {
					msg += ": " + ae.Error.Detail
				}
			case len(ae.Errors) > 0:
				msg, existing = ae.Errors[0].Message, ae.Errors[0].Existing
			}
		}
		he := &forge.HTTPError{Status: resp.StatusCode, Err: c.token.Scrub(errors.New(msg))}
		if resp.StatusCode == http.StatusTooManyRequests {
			return &forge.RateLimitError{Err: he}
		}
		if len(existing) > 0 {
			return &dcError{HTTPError: he, existing: existing}
		}
		return he
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("read %s %s: %w", method, u.Path, err)
	}
	return nil
}

// resolve is ref under base. An absolute ref (a next link) must be on the
// API's own origin: the credentials go with it.
func (c *client) resolve(ref string) (*url.URL, error) {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		u, err := url.Parse(ref)
		if err != nil {
			return nil, err
		}
		if u.Scheme != c.base.Scheme || u.Host != c.base.Host || !strings.HasPrefix(u.Path, c.base.Path+"/") {
			return nil, fmt.Errorf("next page %s is not under the API at %s", u.Redacted(), c.base)
		}
		return u, nil
	}
	return url.Parse(c.base.String() + "/" + ref)
}

// status is err's HTTP status, 0 for none.
func status(err error) int {
	var he *forge.HTTPError
	if errors.As(err, &he) {
		return he.Status
	}
	return 0
}

// page is one page of a Bitbucket listing.
type page struct {
	Values []json.RawMessage `json:"values"`
	Next   string            `json:"next"`
}

// list reads a listing item by item (pages), each saying whether to go on.
func (c *client) list(ctx context.Context, what, ref string, query url.Values, pagelen, limit int,
	each func([]byte) (bool, error)) error {
	return c.pages(ctx, what, ref, query, pagelen, limit, func(values []json.RawMessage) (bool, error) {
		for _, raw := range values {
			if more, err := each(raw); err != nil || !more {
				return false, err
			}
		}
		return true, nil
	})
}

// pages reads a listing through forge.Pages: the first page at ref with
// query (pagelen added), then each next link as Bitbucket gives it, which
// carries the query on. The page number forge.Pages checks for a link
// back is the next link's page parameter. each handles a page's items and
// says whether to go on. limit is forge.Pages' (0: to the end).
func (c *client) pages(ctx context.Context, what, ref string, query url.Values, pagelen, limit int,
	each func([]json.RawMessage) (bool, error)) error {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("pagelen", strconv.Itoa(pagelen))
	next := ""
	return forge.Pages(what, limit, func(n int) (int, error) {
		var p page
		var err error
		if n == 1 {
			err = c.do(ctx, http.MethodGet, ref, q, nil, &p)
		} else {
			err = c.do(ctx, http.MethodGet, next, nil, nil, &p)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		more, err := each(p.Values)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if !more || p.Next == "" {
			return 0, nil
		}
		next = p.Next
		u, err := url.Parse(p.Next)
		if err != nil {
			return 0, fmt.Errorf("%s: next page: %w", what, err)
		}
		// Bitbucket's pull requests, comments and issues page by
		// number; a listing with an opaque cursor counts on.
		if m, err := strconv.Atoi(u.Query().Get("page")); err == nil {
			return m, nil
		}
		return n + 1, nil
	})
}

// quote is s as a string of Bitbucket's query language.
func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// path is a path of segments, each escaped.
func path(segments ...string) string {
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return strings.Join(segments, "/")
}

// Unwrap is the refusal itself, so that errors.As finds its status.
func (e *dcError) Unwrap() error { return e.HTTPError }
