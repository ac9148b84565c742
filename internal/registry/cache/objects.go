package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Object is a content-addressed answer: a manifest with its media type,
// or a blob (MediaType may then be empty).
type Object struct {
	MediaType string
	Data      []byte
}

// maxMediaType bounds the first line of an object file; real media types
// are under 100 bytes.
const maxMediaType = 255

// Get returns the object named by digest ("sha256:<hex>"). A file that is
// missing, unreadable or whose bytes do not hash to digest is a miss; a
// damaged one is removed.
func (c *Cache) Get(digest string) (Object, bool) {
	path, ok := c.objectPath(digest)
	if !ok {
		return Object{}, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Object{}, false
	}
	mt, data, ok := bytes.Cut(b, []byte("\n"))
	if !ok || len(mt) > maxMediaType || !matches(digest, data) {
		os.Remove(path)
		return Object{}, false
	}
	// The file's time is its last use: Prune removes the least recently
	// used first.
	now := c.now()
	os.Chtimes(path, now, now)
	return Object{MediaType: string(mt), Data: data}, true
}

// Put stores o under digest, which its bytes must hash to: a caller can
// never make the cache answer a digest with other content.
func (c *Cache) Put(digest string, o Object) error {
	path, ok := c.objectPath(digest)
	if !ok {
		return fmt.Errorf("cache: %q is not a sha256 digest", digest)
	}
	if !matches(digest, o.Data) {
		return fmt.Errorf("cache: content does not match %s", digest)
	}
	if strings.ContainsAny(o.MediaType, "\r\n") || len(o.MediaType) > maxMediaType {
		return errors.New("cache: media type is not one line")
	}
	if int64(len(o.Data)) > c.maxBytes/4 {
		return nil // would crowd out everything else
	}
	if st, err := os.Stat(path); err == nil && st.Size() == int64(len(o.MediaType)+1+len(o.Data)) {
		now := c.now()
		os.Chtimes(path, now, now)
		return nil // same digest, same bytes: already there
	}
	buf := make([]byte, 0, len(o.MediaType)+1+len(o.Data))
	buf = append(append(append(buf, o.MediaType...), '\n'), o.Data...)
	if err := writeAtomic(path, buf); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// objectPath is DIR/v1/sha256/ab/abcdef..., or false for anything but a
// well-formed sha256 digest, so that no input names a path elsewhere.
func (c *Cache) objectPath(digest string) (string, bool) {
	hexPart, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hexPart) != 64 {
		return "", false
	}
	if _, err := hex.DecodeString(hexPart); err != nil || strings.ToLower(hexPart) != hexPart {
		return "", false
	}
	return filepath.Join(c.dir, "sha256", hexPart[:2], hexPart), true
}

func matches(digest string, data []byte) bool {
	sum := sha256.Sum256(data)
	return digest == "sha256:"+hex.EncodeToString(sum[:])
}
