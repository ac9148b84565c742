package main

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
)

// treeConfig reads the config from the tree run plans from: --config FILE
// when relative (a path in the repository), else .imagebot.yaml or
// .imagebot.yml at its root, else the defaults. An absolute --config is a
// file on disk, outside the repository.
func treeConfig(sess *gitops.Session, file string) (*config.Config, error) {
	where := tipName(sess)
	switch {
	case file == "":
		return config.FindFS(sess.FS(), where)
	case filepath.IsAbs(file):
		return config.Load(file)
	}
	cfg, err := config.LoadFS(sess.FS(), file, where)
	if errors.Is(err, fs.ErrNotExist) {
		// The file may well be in the checkout, which run never reads.
		return nil, explain(err, "--config %s: no such file in %s (run reads the config from the default branch's tip)", file, where)
	}
	return cfg, err
}
