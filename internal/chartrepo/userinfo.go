package chartrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
)

// authorize gives a request to u for the repository at repo its basic
// auth: the credentials written in the repository's URL, else the
// config's for its host; to the repository's own scheme and host alone.
func (c *Client) authorize(req *http.Request, repo, u *url.URL) {
	if !sameOrigin(u, repo) {
		return
	}
	if repo.User != nil {
		p, _ := repo.User.Password()
		req.SetBasicAuth(repo.User.Username(), p)
		return
	}
	if cr, ok := c.o.credentials[repo.Host]; ok {
		req.SetBasicAuth(cr.Username, cr.Password)
	}
}

// userKey tells apart, in memory only, the credentials a repository URL
// was written with; "" for none.
func userKey(u *url.Userinfo) string {
	if u == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(u.String()))
	return "\x00" + hex.EncodeToString(sum[:8])
}
