package secret

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is as many as net/http follows by default.
const maxRedirects = 10

// RedirectError is a redirect that was not followed because it leads to
// another origin than the request's: its credentials would go there.
type RedirectError struct {
	From, To *url.URL
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refusing a redirect from %s to %s: another scheme, host or port would receive the credentials, so it is not followed",
		origin(e.From), Redact(e.To))
}

// CheckRedirect is an http.Client's CheckRedirect for clients that send
// credentials: it follows a redirect only to the scheme, host and port of
// the first request (a GitHub repository renamed, a trailing slash), at
// most 10 in a row, and refuses any other with a *RedirectError.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0].URL
	if origin(first) != origin(req.URL) {
		return &RedirectError{From: first, To: req.URL}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects (last to %s)", maxRedirects, Redact(req.URL))
	}
	return nil
}

// origin is scheme://host:port, the port spelled out and the host in
// lower case.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Redact is u for messages: without user info and query (a signed URL's
// secret).
func Redact(u *url.URL) string {
	out := *u
	out.User, out.RawQuery, out.ForceQuery = nil, "", false
	return out.String()
}
