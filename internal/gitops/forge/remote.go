package forge

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Host is a git host's server as far as its token is concerned: the token
// is the git password too, and goes to that server and nowhere else.
type Host struct {
	Name    string // "GitHub"
	URL     string // the server's URL; "" is Default
	Var     string // the setting that names it: "GITHUB_SERVER_URL"
	Default string // the URL when unset: "https://github.com"; "" for none
	Example string // a self-hosted one: "https://github.example.com"
	// Hint ends the refusal of a remote elsewhere: what else to do.
	Hint string
}

// CheckRemote refuses a git remote on another host than h's server: the
// token (GITHUB_TOKEN, a GitHub App's installation token, any host's
// token) is sent to the remote as the git password, and a clone on
// another host must not get it. An http(s) remote must also have the
// server's scheme and port, so that the token is never sent in plain http
// nor to another service on the same machine; an ssh remote
// (git@host:owner/name) is compared by host name only. A remote without a
// host (a local path) is reached without the token.
func (h Host) CheckRemote(remote string) error {
	server := cmp.Or(h.URL, h.Default)
	su, err := url.Parse(server)
	if err != nil || su.Host == "" || (su.Scheme != "http" && su.Scheme != "https") {
		such := h.Example
		if h.Default != "" {
			such = h.Default + " or " + h.Example
		}
		return fmt.Errorf("%s %q: want the server's URL, such as %s", h.Var, server, such)
	}
	rscheme, rhost, rport, ok := RemoteHost(remote)
	if !ok {
		return nil
	}
	shost, sport := strings.ToLower(su.Hostname()), effectivePort(su)
	switch {
	case rhost != shost || (rport != "" && rport != sport):
		what := rhost
		if rport != "" {
			what = net.JoinHostPort(rhost, rport)
		}
		setting := h.Var
		if h.Default != "" {
			setting += ", default " + h.Default
		}
		return fmt.Errorf("the git remote %s is on %s, not on the %s server %s (%s): "+
			"the %s token goes to its own host only, so nothing was sent. Run in a clone of the %s repository (origin on %s), %s",
			RedactURL(remote), what, h.Name, strings.ToLower(su.Host), setting, h.Name, h.Name, shost, h.Hint)
	case !underPath(remote, rscheme, su.Path):
		return fmt.Errorf("the git remote %s is not under the %s server's path %s (%s): "+
			"the %s token goes to its own server only, so nothing was sent; set %s to the server origin is on",
			RedactURL(remote), h.Name, strings.TrimSuffix(su.Path, "/"), strings.TrimSuffix(server, "/"), h.Name, h.Var)
	case rscheme == "http" && su.Scheme == "https":
		return fmt.Errorf("the git remote %s is plain http, but the %s server %s is https: the token is never sent in plain http, so nothing was sent; "+
			"make origin's URL https (git remote set-url origin https://...)", RedactURL(remote), h.Name, strings.ToLower(su.Host))
	}
	return nil
}

// underPath reports whether an http(s) remote lies under the server's
// path (a host installed at https://host/gitlab serves its repositories
// under /gitlab/, and another service may answer the rest of the host).
// ssh remotes carry no such path (git@host:group/name), and pass.
func underPath(remote, scheme, serverPath string) bool {
	prefix := strings.TrimSuffix(serverPath, "/")
	if prefix == "" || (scheme != "http" && scheme != "https") {
		return true
	}
	u, err := url.Parse(remote)
	return err == nil && strings.HasPrefix(u.Path, prefix+"/")
}

// RepoPath is the repository's path on a host served at server, which may
// be installed under a path (https://host/gitlab): what follows the
// server's path in an http(s) remote's, else the whole path of an ssh
// remote (git@host:group/name.git, which never carries the server's path),
// without ".git" and slashes around it: "group/sub/name".
func RepoPath(remote, server string) (string, error) {
	var p string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		p = u.Path
		if su, err := url.Parse(server); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			prefix := strings.TrimSuffix(su.Path, "/")
			if prefix != "" && !strings.HasPrefix(p, prefix+"/") {
				return "", fmt.Errorf("remote %s: not under the server's path %s", RedactURL(remote), prefix)
			}
			p = strings.TrimPrefix(p, prefix)
		}
	} else if _, rest, ok := strings.Cut(remote, ":"); ok { // git@host:group/name.git
		p = rest
	}
	p = strings.Trim(strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git"), "/")
	if !strings.Contains(p, "/") {
		return "", fmt.Errorf("remote %s: no owner/name in its path", RedactURL(remote))
	}
	return p, nil
}

// ServerFromRemote is the server of a host whose repositories are
// owner/name (Gitea, Forgejo), read from a remote on it: the remote's
// scheme, host and whatever path precedes owner/name.git, so that a server
// installed under a path (https://host/gitea) is found too. An ssh remote
// gives the https server on its host. ok is false for a local path.
func ServerFromRemote(remote string) (string, bool) {
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			segs := strings.Split(strings.Trim(u.Path, "/"), "/")
			if len(segs) < 2 {
				return "", false
			}
			prefix := strings.Join(segs[:len(segs)-2], "/")
			s := &url.URL{Scheme: strings.ToLower(u.Scheme), Host: u.Host}
			if prefix != "" {
				s.Path = "/" + prefix
			}
			return s.String(), true
		case "ssh":
			return "https://" + u.Hostname(), true
		}
		return "", false
	}
	if _, host, _, ok := RemoteHost(remote); ok {
		return "https://" + host, true
	}
	return "", false
}

// RemoteHost is the scheme and host a git remote URL reaches, lowercased,
// and for http(s) its port (the scheme's default when unwritten). ok is
// false for a local path.
func RemoteHost(remote string) (scheme, host, port string, ok bool) {
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		scheme = strings.ToLower(u.Scheme)
		switch scheme {
		case "http", "https":
			return scheme, strings.ToLower(u.Hostname()), effectivePort(u), true
		}
		return scheme, strings.ToLower(u.Hostname()), "", true // ssh://, git://
	}
	if strings.Contains(remote, "://") {
		return "", "", "", false // file:// or unparsable: no host to send to
	}
	// scp-like: [user@]host:path, as git reads it (a colon before any slash).
	before, _, found := strings.Cut(remote, ":")
	if !found || strings.Contains(before, "/") {
		return "", "", "", false
	}
	if _, h, at := strings.Cut(before, "@"); at {
		before = h
	}
	return "ssh", strings.ToLower(strings.Trim(before, "[]")), "", before != ""
}

// effectivePort is a URL's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// RedactURL removes userinfo (a token in https://x:TOKEN@host/...) from a
// URL before it reaches a message or a log.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return raw
}
