package secret

import (
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Mask replaces a secret in messages.
const Mask = "***"

// shapes are what a credential looks like wherever it is quoted, known or
// not: the token formats of GitHub and GitLab, JWTs, the value of an
// Authorization-like header or a token-like field in a header dump, a
// JSON body or a query, and the password of a URL.
var shapes = []*regexp.Regexp{
	// A URL's password: scheme://user:PASSWORD@host (first: a user
	// name such as x-access-token is no header).
	regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)[^/\s@]+(@)`),
	// Header and field values: "Authorization: Bearer X",
	// "Private-Token: X", `"token":"X"`, "access_token=X".
	regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[:=]\s*"?(?:(?:bearer|basic|token|bot|digest)\s+)?)[^\s"',;&]+`),
	regexp.MustCompile(`(?i)((?:private|job|deploy|access|refresh|id|auth|x-gitlab|x-auth|x-api)[-_]?token"?\s*[:=]\s*"?)[^\s"',;&@]+`),
	// A bare "token" or "password" only as a JSON key or a query's
	// (`"token":"X"`, "password=X"): "rejected the token: 401" is prose.
	regexp.MustCompile(`(?i)((?:^|[\s"'?&{,;])(?:token|password|passwd|secret|client_secret|api[-_]?key)(?:"\s*:\s*"|=))[^\s"',;&@]+`),
	// "Bearer X" and "Basic X" anywhere: a token after its scheme.
	regexp.MustCompile(`((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}`),
	// GitHub: ghp_ (personal), gho_ (OAuth), ghu_/ghs_ (App user and
	// installation), ghr_ (refresh), github_pat_ (fine-grained).
	regexp.MustCompile(`()\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})`),
	// GitLab: glpat- (personal, project, group), and the other gl*-
	// prefixes of its tokens (deploy, runner, feed, OAuth, CI job, ...).
	regexp.MustCompile(`()\bgl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|ffct|agent|sa|wt)-[A-Za-z0-9_-]{16,}`),
	// JWTs (a GitHub App's, a registry's bearer token).
	regexp.MustCompile(`()\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
}

// Scrub replaces in s every secret given (at least 4 bytes long; shorter
// ones would mask ordinary words) and everything shaped like a credential.
func Scrub(s string, secrets ...string) string {
	for _, t := range secrets {
		if len(t) >= 4 && strings.Contains(s, t) {
			s = strings.ReplaceAll(s, t, Mask)
		}
	}
	for _, re := range shapes {
		if !re.MatchString(s) {
			continue
		}
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			out := sub[1] + Mask
			if len(sub) > 2 {
				out += sub[2]
			}
			return out
		})
	}
	return s
}

// scrubbed is an error whose message had secrets in it: it says the
// message without them and still unwraps to the original, so that callers
// still tell its kind (a status, a rate limit).
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Error is err with its message scrubbed (Scrub), or err itself when
// there was nothing to scrub. nil stays nil.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := Scrub(msg, secrets...)
	if clean == msg {
		return err
	}
	var s *scrubbed
	if errors.As(err, &s) && s == err {
		return &scrubbed{msg: clean, err: s.err}
	}
	return &scrubbed{msg: clean, err: err}
}

// credentialHeaders are the request headers that carry a secret.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Private-Token", "Job-Token", "Deploy-Token", "X-Gitlab-Token", "Cookie"}

// Of are the secrets req carries: its credential headers' values, each
// also without its scheme ("Bearer X": X) and, for basic auth, the
// password and the encoded pair; its URL's password; token-like query
// values.
func Of(req *http.Request) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= 4 && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, h := range credentialHeaders {
		for _, v := range req.Header.Values(h) {
			add(v)
			scheme, cred, ok := strings.Cut(v, " ")
			if !ok {
				continue
			}
			add(cred)
			if strings.EqualFold(scheme, "basic") {
				if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
					if _, pw, ok := strings.Cut(string(b), ":"); ok {
						add(pw)
					}
				}
			}
		}
	}
	if req.URL != nil {
		if pw, ok := req.URL.User.Password(); ok {
			add(pw)
		}
		for k, vs := range req.URL.Query() {
			if k := strings.ToLower(k); strings.Contains(k, "token") || strings.Contains(k, "secret") || k == "password" {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	return out
}

// ReplaceAttr is a slog.HandlerOptions.ReplaceAttr that scrubs every
// string and error logged (Scrub): a log is written anywhere, and an error
// logged may quote a request.
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value.Resolve(); v.Kind() {
	case slog.KindString:
		if s := v.String(); Scrub(s) != s {
			a.Value = slog.StringValue(Scrub(s))
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			if s := err.Error(); Scrub(s) != s {
				a.Value = slog.StringValue(Scrub(s))
			}
		}
	}
	return a
}
