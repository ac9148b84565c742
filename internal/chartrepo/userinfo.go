package chartrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
)

// userKey tells apart, in memory only, the credentials a repository URL
// was written with; "" for none.
func userKey(u *url.Userinfo) string {
	if u == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(u.String()))
	return "\x00" + hex.EncodeToString(sum[:8])
}
