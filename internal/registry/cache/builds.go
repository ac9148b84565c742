package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"
)

// Builds is when the image of each tag of one repository was built, as an
// order (policy `order`) read it: kept for ever, like the objects, since
// the image behind a build tag (main-3f9a2c1) is read once, when the tag
// is first seen; re-reading it each run is what makes "newest build"
// cost a manifest and a config per tag per run elsewhere.
type Builds struct {
	Host    string               `json:"host"` // the registry as references name it
	Repo    string               `json:"repo"`
	Created map[string]time.Time `json:"created"`
}

// maxBuildsFile bounds a builds file when read: some 100,000 tags.
const maxBuildsFile = 8 << 20

// Builds returns the build times kept for repo on host, or nil.
func (c *Cache) Builds(host, repo string) map[string]time.Time {
	var b Builds
	if !c.readSummed(c.buildsPath(host, repo), maxBuildsFile, &b, func() bool { return b.Host == host && b.Repo == repo }) {
		return nil
	}
	return b.Created
}

// PutBuilds adds created to what is kept for repo on host; a tag already
// kept keeps its time.
func (c *Cache) PutBuilds(host, repo string, created map[string]time.Time) error {
	defer c.lock("builds " + host + "/" + repo)()
	all := c.Builds(host, repo)
	if all == nil {
		all = map[string]time.Time{}
	}
	for t, at := range created {
		if _, ok := all[t]; !ok {
			all[t] = at.UTC()
		}
	}
	return writeSummed(c.buildsPath(host, repo), maxBuildsFile, Builds{Host: host, Repo: repo, Created: all})
}

// buildsPath names a builds file by the sha256 of "host/repo", as a
// listing is named.
func (c *Cache) buildsPath(host, repo string) string {
	sum := sha256.Sum256([]byte(host + "/" + repo))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, "builds", h[:2], h+".json")
}
