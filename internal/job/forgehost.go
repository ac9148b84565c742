package job

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
)

// defaultServerURL is GitHub's, when GITHUB_SERVER_URL is not set.
const defaultServerURL = "https://github.com"

// CheckRemote refuses a git remote on another host than the GitHub
// server's (GITHUB_SERVER_URL, default https://github.com): GITHUB_TOKEN, or
// a GitHub App's installation token, is sent to the remote as the git
// password, and a clone of a GitLab or self-hosted repository must not get
// it. An http(s) remote must also have the server's scheme and port, so
// that the token is never sent in plain http nor to another service on the
// same machine; an ssh remote (git@host:owner/name) is compared by host
// name only. A remote without a host (a local path) is reached without
// the token. serverURL is GITHUB_SERVER_URL.
func CheckRemote(remote, serverURL string) error {
	server := cmp.Or(serverURL, defaultServerURL)
	su, err := url.Parse(server)
	if err != nil || su.Host == "" || (su.Scheme != "http" && su.Scheme != "https") {
		return fmt.Errorf("GITHUB_SERVER_URL %q: want the server's URL, such as https://github.com or https://github.example.com", server)
	}
	rscheme, rhost, rport, ok := remoteHost(remote)
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
		return fmt.Errorf("the git remote %s is on %s, not on the GitHub server %s (GITHUB_SERVER_URL, default %s): "+
			"the GitHub token goes to its own host only, so nothing was sent. Run in a clone of the GitHub repository (origin on %s), "+
			"or, for GitHub Enterprise, set GITHUB_SERVER_URL and GITHUB_API_URL to its server",
			gitops.RedactURL(remote), what, strings.ToLower(su.Host), defaultServerURL, shost)
	case rscheme == "http" && su.Scheme == "https":
		return fmt.Errorf("the git remote %s is plain http, but the GitHub server %s is https: the token is never sent in plain http, so nothing was sent; "+
			"make origin's URL https (git remote set-url origin https://...)", gitops.RedactURL(remote), strings.ToLower(su.Host))
	}
	return nil
}

// remoteHost is the scheme and host a git remote URL reaches, lowercased,
// and for http(s) its port (the scheme's default when unwritten). ok is
// false for a local path.
func remoteHost(remote string) (scheme, host, port string, ok bool) {
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
