package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"
)

// Document is a file fetched by URL that is not content-addressed, such
// as a Helm repository's index.yaml, as its server last confirmed it: the
// validators to ask again with, and the object holding what the client
// kept of it (stored with Put, named by its digest).
type Document struct {
	URL          string `json:"url"` // as fetched, never with credentials
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	// Checked is when the server last confirmed the document, by sending
	// it or by answering 304.
	Checked time.Time `json:"checked"`
	Object  string    `json:"object"` // the digest of the content kept
}

const maxDocumentFile = 4 << 10

// Document returns the stored document fetched from url, fresh or not
// (see FreshDocument), with its object; false when either is missing or
// damaged, or when the object is not of mediaType (written by another
// version of its client).
func (c *Cache) Document(url, mediaType string) (*Document, Object, bool) {
	var d Document
	if !c.readSummed(c.documentPath(url), maxDocumentFile, &d, func() bool { return d.URL == url && digestRE.MatchString(d.Object) }) {
		return nil, Object{}, false
	}
	o, ok := c.Get(d.Object)
	if !ok || o.MediaType != mediaType {
		return nil, Object{}, false
	}
	return &d, o, true
}

// PutDocument stores d with its content o, replacing what was stored for
// d.URL. Content too large for the cache (a quarter of its bound) is not
// kept, and neither is d then.
func (c *Cache) PutDocument(d Document, o Object) error {
	sum := sha256.Sum256(o.Data)
	d.Object = "sha256:" + hex.EncodeToString(sum[:])
	if err := c.Put(d.Object, o); err != nil {
		return err
	}
	if _, ok := c.Get(d.Object); !ok {
		return nil
	}
	defer c.lock(d.URL)()
	return writeSummed(c.documentPath(d.URL), maxDocumentFile, d)
}

// FreshDocument reports whether d may be used without asking its server,
// as Fresh does for a listing.
func (c *Cache) FreshDocument(d *Document) bool { return c.fresh(d.Checked) }

// documentPath names a document by the sha256 of its URL, as listingPath
// does.
func (c *Cache) documentPath(url string) string {
	sum := sha256.Sum256([]byte(url))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, "documents", h[:2], h+".json")
}
