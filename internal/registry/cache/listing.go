package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Listing is the tags of one repository as its registry last confirmed
// them, page by page with each page's validators, and the digests its
// tags resolved to while it was fresh.
type Listing struct {
	Host string `json:"host"` // the host contacted: a mirror's, when mirrored
	Repo string `json:"repo"` // the repository's path there
	// Checked is when the registry last confirmed the listing, by
	// sending it or by answering 304.
	Checked time.Time         `json:"checked"`
	Pages   []Page            `json:"pages"`
	Digests map[string]string `json:"digests,omitempty"`
}

// Page is one page of a listing as the registry sent it.
type Page struct {
	URL          string   `json:"url"`
	ETag         string   `json:"etag,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
	Link         string   `json:"link,omitempty"` // the Link header: the next page
	Tags         []string `json:"tags"`
}

// maxListingFile bounds what one listing file may weigh when read: a
// registry's listing is capped at 1,000 pages by the client, and 64 MiB
// is some two million tags.
const maxListingFile = 64 << 20

// Listing returns the stored listing of repo on host, fresh or not (see
// Fresh), or false when there is none or its file is damaged.
func (c *Cache) Listing(host, repo string) (*Listing, bool) {
	var l Listing
	if !c.readSummed(c.listingPath(host, repo), maxListingFile, &l, func() bool { return l.Host == host && l.Repo == repo && l.valid() }) {
		return nil, false
	}
	return &l, true
}

// readSummed reads a file written by writeSummed into v, if it is there,
// at most max bytes, its checksum right and ok() true of what it holds.
// A damaged file is removed: it is a miss, never a wrong answer.
func (c *Cache) readSummed(path string, max int64, v any, ok func() bool) bool {
	st, err := os.Stat(path)
	if err != nil || st.Size() > max {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	sum, body, cut := bytes.Cut(b, []byte("\n"))
	got := sha256.Sum256(body)
	if !cut || string(sum) != hex.EncodeToString(got[:]) || json.Unmarshal(body, v) != nil || !ok() {
		os.Remove(path)
		return false
	}
	now := c.now() // a use: Prune removes the least recently used first
	os.Chtimes(path, now, now)
	return true
}

// writeSummed writes v as JSON under its checksum, unless it would weigh
// more than max bytes (it could not be read back).
func writeSummed(path string, max int64, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if int64(len(body)) > max-100 {
		return nil
	}
	sum := sha256.Sum256(body)
	b := append([]byte(hex.EncodeToString(sum[:])+"\n"), body...)
	if err := writeAtomic(path, b); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Fresh reports whether l may be used without asking the registry: it was
// confirmed less than the TTL ago (and not in the future, as a file from
// a machine with a skewed clock may say).
func (c *Cache) Fresh(l *Listing) bool { return c.fresh(l.Checked) }

func (c *Cache) fresh(checked time.Time) bool {
	age := c.now().Sub(checked)
	return age >= 0 && age < c.ttl
}

// PutListing stores l, replacing the repository's listing.
func (c *Cache) PutListing(l *Listing) error {
	defer c.lock(l.Host + "/" + l.Repo)()
	return c.write(l)
}

func (c *Cache) write(l *Listing) error {
	if !l.valid() {
		return fmt.Errorf("cache: listing of %s/%s has a digest that is not a digest", l.Host, l.Repo)
	}
	return writeSummed(c.listingPath(l.Host, l.Repo), maxListingFile, l)
}

// Digest returns the digest tag resolved to while the repository's
// listing is fresh, and false otherwise.
func (c *Cache) Digest(host, repo, tag string) (string, bool) {
	l, ok := c.Listing(host, repo)
	if !ok || !c.Fresh(l) {
		return "", false
	}
	d, ok := l.Digests[tag]
	return d, ok
}

// PutDigest records that tag resolves to digest, for as long as the
// repository's listing stays fresh. Without a fresh listing it records
// nothing: a digest is never kept longer than the listing it belongs to.
func (c *Cache) PutDigest(host, repo, tag, digest string) error {
	if !digestRE.MatchString(digest) {
		return fmt.Errorf("cache: %q is not a digest", digest)
	}
	defer c.lock(host + "/" + repo)()
	l, ok := c.Listing(host, repo)
	if !ok || !c.Fresh(l) {
		return nil
	}
	if l.Digests[tag] == digest {
		return nil
	}
	if l.Digests == nil {
		l.Digests = map[string]string{}
	}
	l.Digests[tag] = digest
	return c.write(l)
}

// digestRE is what a stored digest must look like: a damaged or forged
// file must not hand out anything else.
var digestRE = regexp.MustCompile(`^sha(256:[0-9a-f]{64}|512:[0-9a-f]{128})$`)

func (l *Listing) valid() bool {
	for _, d := range l.Digests {
		if !digestRE.MatchString(d) {
			return false
		}
	}
	return true
}

// listingPath names a listing by the sha256 of "host/repo": fixed length,
// no path syntax from the registry reaches the file system.
func (c *Cache) listingPath(host, repo string) string {
	sum := sha256.Sum256([]byte(host + "/" + repo))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, "tags", h[:2], h+".json")
}
