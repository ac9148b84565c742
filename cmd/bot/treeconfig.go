package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
)

// maxConfigSize bounds a config read from the tree, as config.Load does on
// disk: a config is a few kilobytes.
const maxConfigSize = 1 << 20

// treeConfig reads the config from the tree run plans from: --config FILE
// when relative (a path in the repository), else .imagebot.yaml or
// .imagebot.yml at its root, else the defaults. An absolute --config is a
// file on disk, outside the repository.
func treeConfig(sess *gitops.Session, file string) (*config.Config, error) {
	if file != "" && filepath.IsAbs(file) {
		return config.Load(file)
	}
	fsys, where := sess.FS(), tipName(sess)
	names := config.FileNames
	if file != "" {
		name := path.Clean(filepath.ToSlash(file))
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("--config %s: not a path inside the repository (an absolute path is read from disk)", file)
		}
		names = []string{name}
	}
	var found []string
	for _, name := range names {
		switch _, err := fs.Stat(fsys, name); {
		case err == nil:
			found = append(found, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("read config %s in %s: %w", name, where, err)
		}
	}
	switch {
	case len(found) == 0 && file != "":
		return nil, fmt.Errorf("--config %s: no such file in %s (run reads the config from the default branch's tip)", file, where)
	case len(found) == 0:
		return config.Default(), nil
	case len(found) > 1:
		return nil, &config.Errors{{File: found[1], Msg: fmt.Sprintf("both %s and %s exist in %s; keep one", found[0], found[1], where)}}
	}
	info, err := fs.Stat(fsys, found[0])
	if err != nil {
		return nil, err
	}
	if info.Size() > maxConfigSize {
		return nil, &config.Errors{{File: found[0], Msg: fmt.Sprintf("config is larger than %d bytes", maxConfigSize)}}
	}
	data, err := fs.ReadFile(fsys, found[0])
	if err != nil {
		return nil, fmt.Errorf("read config %s in %s: %w", found[0], where, err)
	}
	return config.Parse(found[0], data)
}
