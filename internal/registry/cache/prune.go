package cache

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// staleTemp is how old a temporary file must be before Prune takes it for
// the leftover of a killed process rather than a write in progress.
const staleTemp = time.Hour

// Prune removes files, least recently used first, until the directory
// holds at most its size bound, and returns how many bytes it freed. Open
// calls it; a long-running process calls it between runs. A file another
// process is reading stays readable to it (POSIX) or fails its read,
// which is a miss.
func (c *Cache) Prune() (int64, error) {
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var files []entry
	var total, freed int64
	now := c.now()
	err := filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by another process meanwhile
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			if now.Sub(info.ModTime()) > staleTemp && os.Remove(path) == nil {
				freed += info.Size()
			}
			return nil
		}
		files = append(files, entry{path, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil {
		return freed, fmt.Errorf("cache %s: %w", c.root, err)
	}
	if total <= c.maxBytes {
		return freed, nil
	}
	slices.SortFunc(files, func(a, b entry) int { return cmp.Compare(a.used.UnixNano(), b.used.UnixNano()) })
	for _, f := range files {
		if total <= c.maxBytes {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
			freed += f.size
		}
	}
	return freed, nil
}
