package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"
)

// HostLimits is what a run learnt about a registry host that the next run
// should not pay to learn again.
type HostLimits struct {
	Host string `json:"host"` // the host contacted
	// TokenScopes is how many repositories one token request may name
	// before the host's token service refuses it or its token outgrows
	// a header.
	TokenScopes int       `json:"tokenScopes"`
	Learnt      time.Time `json:"learnt"`
}

// hostLimitsTTL is how long learnt limits are trusted. A registry may
// raise its limits; after a week a run tries again, at the cost of a
// refusal or two.
const hostLimitsTTL = 7 * 24 * time.Hour

const maxHostFile = 4 << 10

// HostLimits returns the limits learnt for host less than a week ago.
func (c *Cache) HostLimits(host string) (HostLimits, bool) {
	var l HostLimits
	ok := c.readSummed(c.hostPath(host), maxHostFile, &l, func() bool { return l.Host == host && l.TokenScopes > 0 })
	if !ok {
		return HostLimits{}, false
	}
	age := c.now().Sub(l.Learnt)
	return l, age >= 0 && age < hostLimitsTTL
}

// PutHostLimits stores l, replacing what was learnt of its host.
func (c *Cache) PutHostLimits(l HostLimits) error {
	return writeSummed(c.hostPath(l.Host), maxHostFile, l)
}

func (c *Cache) hostPath(host string) string {
	sum := sha256.Sum256([]byte(host))
	return filepath.Join(c.dir, "hosts", hex.EncodeToString(sum[:])+".json")
}
