package scan

import (
	"net/url"
	"regexp"
	"strings"
)

// Credentials are the user and password a chart repository's URL was
// written with (https://USER:PASSWORD@charts.example.com/stable), as Helm
// accepts them (issue 25). They are no part of the chart's name: its
// Repository, String, and so every notice, plan, log, branch, pull request
// and dashboard line, never hold them. Only the request for the
// repository's index sends them (Chart.RequestURL), to its host alone.
// They print as "[redacted]" and never marshal.
type Credentials struct{ username, password string }

// IsZero tells that the URL held no credentials.
func (c Credentials) IsZero() bool { return c == Credentials{} }

// Username and Password are the credentials.
func (c Credentials) Username() string { return c.username }
func (c Credentials) Password() string { return c.password }

func (Credentials) String() string               { return "[redacted]" }
func (Credentials) GoString() string             { return "scan.Credentials{[redacted]}" }
func (Credentials) MarshalText() ([]byte, error) { return nil, nil }

// RequestURL is the repository's URL with the credentials it was written
// with: for the request to the repository alone, never to be shown.
func (c Chart) RequestURL() string {
	if c.Credentials.IsZero() {
		return c.Repository
	}
	scheme, rest, ok := strings.Cut(c.Repository, "://")
	if !ok {
		return c.Repository
	}
	u := url.UserPassword(c.Credentials.username, c.Credentials.password)
	if c.Credentials.password == "" {
		u = url.User(c.Credentials.username)
	}
	return scheme + "://" + u.String() + "@" + rest
}

// stripUserinfo takes the credentials out of a repository URL. The
// userinfo ends at the last '@' before the path, as net/url reads it
// (a password with a bare '@' included); it is unescaped as net/url does.
func stripUserinfo(s string) (string, Credentials) {
	prefix, rest, ok := strings.Cut(s, "://")
	if ok {
		prefix += "://"
	} else {
		prefix, rest = "", s
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 || !ok && !strings.Contains(rest[:at], ":") {
		return s, Credentials{} // "git@github.com:…" names a user, not a secret
	}
	user, pass, _ := strings.Cut(rest[:at], ":")
	if u, err := url.PathUnescape(user); err == nil {
		user = u
	}
	if p, err := url.PathUnescape(pass); err == nil {
		pass = p
	}
	return prefix + rest[at+1:], Credentials{username: user, password: pass}
}

// userinfoRE finds the userinfo of a URL anywhere in a text.
var userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"'` + "`" + `]*@`)

// WithoutUserinfo drops the userinfo of every URL in s (a message that
// quotes a file), for what is shown.
func WithoutUserinfo(s string) string { return scrub(s) }

// scrub drops the userinfo of every URL in s, for what is shown.
func scrub(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return userinfoRE.ReplaceAllString(s, "$1")
}

// scrubbed is an error whose text had a URL's userinfo dropped.
type scrubbed struct {
	msg string
	err error
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

// scrubResult drops the userinfo of the URLs written in the scanned files
// from everything res shows: notices' values and details, problems. The
// references' names never held any (chartRepository).
func scrubResult(res *Result) {
	for i := range res.Skipped {
		s := &res.Skipped[i]
		s.Value, s.Detail, s.Image = scrub(s.Value), scrub(s.Detail), scrub(s.Image)
	}
	for i, p := range res.Problems {
		if p.Err == nil {
			continue
		}
		if msg := scrub(p.Err.Error()); msg != p.Err.Error() {
			res.Problems[i].Err = scrubbed{msg: msg, err: p.Err}
		}
	}
}
