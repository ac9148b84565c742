package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
)

// engine is the pipeline up to the plan, built once per command.
type engine struct {
	repo   string // what fsys is, for messages: a directory or a commit
	fsys   fs.FS  // the files to scan
	cfg    *config.Config
	reg    *registry.Client
	log    *slog.Logger
	stderr io.Writer
}

// newEngine is the pipeline over the working tree of o.Repo.
func newEngine(o commonOptions) (*engine, error) {
	if st, err := os.Stat(o.Repo); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("repository %s: not a readable directory", o.Repo)
	}
	cfg, err := loadConfig(o.Repo, o.Config)
	if err != nil {
		return nil, err
	}
	return engineFor(o, cfg, os.DirFS(o.Repo), o.Repo, o.logger())
}

// engineFor is the pipeline for cfg over fsys, which repo names in messages.
func engineFor(o commonOptions, cfg *config.Config, fsys fs.FS, repo string, log *slog.Logger) (*engine, error) {
	reg := registry.NewClient(registryOptions(o, cfg, log)...)
	if err := reg.Err(); err != nil {
		// --mirror flags can make a conflict the config file alone has not.
		return nil, fmt.Errorf("registries: %w", err)
	}
	return &engine{repo: repo, fsys: fsys, cfg: cfg, reg: reg, log: log, stderr: o.IO.ErrOut}, nil
}

// plan scans the repository and decides every reference.
func (e *engine) plan(ctx context.Context) (*plan.Plan, scan.Result, error) {
	res, err := scan.FS(ctx, e.fsys, e.cfg.Included, scan.WithMaxFileSize(int64(e.cfg.MaxFileSize)))
	if err != nil {
		return nil, res, fmt.Errorf("scan %s: %w", e.repo, err)
	}
	e.log.Debug("scanned", "files", res.Files, "references", len(res.Refs))
	prog := newProgress(e.stderr, "looking up images")
	p, err := plan.Build(ctx, res, plan.Options{
		Registry: e.reg,
		Policy:   e.policies(),
		Progress: prog.update,
		Logger:   e.log,
	})
	prog.done()
	if err != nil {
		return nil, res, err
	}
	for _, s := range e.reg.Stats() {
		e.log.Debug("registry requests", "host", s.Host, "requests", s.Requests, "errors", s.Errors)
	}
	return p, res, nil
}

// policies compiles each image's policy once. The config was validated on
// load, so an error here names a combination that only fails when merged.
func (e *engine) policies() func(string) (*policy.Policy, error) {
	var mu sync.Mutex
	cache := map[string]*policy.Policy{}
	return func(image string) (*policy.Policy, error) {
		mu.Lock()
		defer mu.Unlock()
		if p, ok := cache[image]; ok {
			return p, nil
		}
		r := e.cfg.For(image)
		p, err := policy.New(policy.Spec{
			Skip: r.Skip, Allow: r.Allow, Ignore: r.Ignore, Pattern: r.Pattern,
			Versioning: r.Versioning, Range: r.Range, Pin: r.Pin,
		})
		if err != nil {
			return nil, err
		}
		cache[image] = p
		return p, nil
	}
}

// planStatus is the error a finished plan earns: a partial failure when a
// lookup failed, nil otherwise (a malformed manifest is only a warning).
func planStatus(p *plan.Plan) error {
	for _, pr := range p.Problems {
		if pr.Failed {
			return errPartial
		}
	}
	return nil
}

// loadConfig reads the config named by --config, resolved against the
// repository (not the working directory) when relative, or the
// repository's own .imagebot.yaml.
func loadConfig(repo, file string) (*config.Config, error) {
	if file != "" {
		return config.LoadIn(repo, file)
	}
	return config.Find(repo)
}
