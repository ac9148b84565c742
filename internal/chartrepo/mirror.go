package chartrepo

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"path"
	"slices"
	"strings"
)

// WithMirrors maps the URLs of HTTP chart repositories to mirrors: a key
// is a host ("charts.example.com", every repository on it) or a host and
// path prefix ("charts.bitnami.com/bitnami"), and its value, a mirror URL
// ("https://artifactory.example.com/artifactory/api/helm/bitnami-remote"),
// replaces that part of a repository URL, whatever its scheme. The
// longest prefix that fits wins; a prefix fits whole path segments only.
// The mirror's host is contacted instead of the repository's, with the
// credentials WithCredentials gives the mirror's host, never the
// repository's; a mirror on this machine is allowed (it is written on
// purpose). A key or URL that does not parse is left out: the config
// checks them.
func WithMirrors(m map[string]string) Option {
	return func(o *options) {
		o.Own.mirrors = o.Own.mirrors[:0]
		for key, raw := range m {
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				continue
			}
			u.Path, u.RawPath, u.RawQuery, u.Fragment, u.User = strings.TrimRight(u.Path, "/"), "", "", "", nil
			host, prefix, _ := strings.Cut(strings.TrimRight(key, "/"), "/")
			o.Own.mirrors = append(o.Own.mirrors, chartMirror{host: strings.ToLower(host), prefix: prefix, to: u})
		}
		// Longest prefix first: "charts.example.com/bitnami" before
		// "charts.example.com".
		slices.SortFunc(o.Own.mirrors, func(a, b chartMirror) int {
			return cmp.Or(cmp.Compare(len(b.prefix), len(a.prefix)), strings.Compare(a.host+"/"+a.prefix, b.host+"/"+b.prefix))
		})
	}
}

type chartMirror struct {
	host, prefix string // prefix without slashes at either end; "" for the whole host
	to           *url.URL
}

// mirrored returns the URL to fetch repository u from: its mirror's, or u
// itself when no mirror fits.
func (c *Client) mirrored(u *url.URL) (*url.URL, bool) {
	for _, m := range c.o.Own.mirrors {
		if !strings.EqualFold(u.Host, m.host) {
			continue
		}
		rest := u.Path
		if m.prefix != "" {
			p := "/" + m.prefix
			if rest != p && !strings.HasPrefix(rest, p+"/") {
				continue
			}
			rest = strings.TrimPrefix(rest, p)
		}
		out := *m.to
		out.Path = path.Join("/", m.to.Path, rest)
		if out.Path == "/" {
			out.Path = ""
		}
		return &out, true
	}
	return u, false
}

// loadMirrored loads repository u's index from its mirror, if it has one;
// an error names both.
func (c *Client) loadMirrored(ctx context.Context, u *url.URL, only map[string]bool) (*index, error) {
	m, ok := c.mirrored(u)
	idx, err := c.load(ctx, m, only)
	var e *Error
	if ok && errors.As(err, &e) {
		shown := *u
		shown.User = nil // the URL's own credentials are never shown
		e.Repository = shown.String() + " (through its mirror " + e.Repository + ")"
	}
	return idx, err
}
