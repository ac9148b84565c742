package gitops

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// PruneGitCache brings the packs kept under dir (Options.GitCache) for
// every repository under maxBytes together, dropping the repositories read
// least recently first, and removes what runs cut short left behind. serve
// calls it between runs; a run bounds its own repository's packs.
func PruneGitCache(dir string, maxBytes int64) error {
	root := filepath.Join(dir, "v1")
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	type repo struct {
		name string
		used time.Time
		size int64
	}
	var repos []repo
	var total int64
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		info, err := os.Stat(filepath.Join(p, "origin"))
		if err != nil {
			if leftOver(e) {
				os.RemoveAll(p)
			}
			continue
		}
		r := repo{name: e.Name(), used: info.ModTime(), size: treeSize(p)}
		repos = append(repos, r)
		total += r.size
	}
	slices.SortFunc(repos, func(a, b repo) int { return a.used.Compare(b.used) })
	for _, r := range repos {
		if total <= maxBytes {
			break
		}
		trash, err := os.MkdirTemp(root, ".drop-")
		if err != nil {
			return err
		}
		err = os.Rename(filepath.Join(root, r.name), filepath.Join(trash, r.name))
		os.RemoveAll(trash)
		if err != nil {
			return err
		}
		total -= r.size
	}
	return nil
}

// leftOver reports whether e is a temporary entry a run cut short left
// behind an hour ago or more.
func leftOver(e fs.DirEntry) bool {
	info, err := e.Info()
	return err == nil && strings.HasPrefix(e.Name(), ".") && time.Since(info.ModTime()) > time.Hour
}

// treeSize is the bytes of the files under dir; a run's leftovers in it an
// hour old are removed on the way.
func treeSize(dir string) int64 {
	var size int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != dir && leftOver(d) {
			os.RemoveAll(p)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	return size
}
