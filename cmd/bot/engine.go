package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
)

// commonOptions are the flags every command that plans shares.
type commonOptions struct {
	Repo        string
	Config      string
	Concurrency int
	Mirrors     mirrorFlag
	LogLevel    string
	LogFormat   string
	Verbose     bool
}

func (o *commonOptions) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "repository `dir` to work on")
	fs.StringVar(&o.Config, "config", "", "config `file` (default: .imagebot.yaml in the repository)")
	fs.IntVar(&o.Concurrency, "concurrency", 0, "registry requests in flight per host (default: 8, 4 for quay.io)")
	fs.Var(&o.Mirrors, "mirror", "`host=url` mirror for a registry, overriding the config (repeatable)")
	fs.StringVar(&o.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.LogFormat, "log-format", "text", "text or json")
	fs.BoolVar(&o.Verbose, "verbose", false, "list every reference left alone, and why")
}

// mirrorFlag collects repeated --mirror host=url flags.
type mirrorFlag map[string]string

func (m *mirrorFlag) String() string { return fmt.Sprint(map[string]string(*m)) }

func (m *mirrorFlag) Set(v string) error {
	host, u, ok := strings.Cut(v, "=")
	if !ok || host == "" {
		return fmt.Errorf("want host=url, got %q", v)
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("mirror %q: want an http:// or https:// URL", u)
	}
	if *m == nil {
		*m = mirrorFlag{}
	}
	(*m)[host] = u
	return nil
}

func (o *commonOptions) logger(stderr io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	hopts := &slog.HandlerOptions{Level: lvl}
	switch o.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(stderr, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(stderr, hopts)), nil
	}
	return nil, fmt.Errorf("--log-format: want text or json, got %q", o.LogFormat)
}

// engine is the pipeline up to the plan, built once per command.
type engine struct {
	repo   string // what fsys is, for messages: a directory or a commit
	fsys   fs.FS  // the files to scan
	cfg    *config.Config
	reg    *registry.Client
	log    *slog.Logger
	stderr io.Writer
}

func newEngine(o commonOptions, stderr io.Writer) (*engine, error) {
	log, err := o.logger(stderr)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(o.Repo); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("repository %s: not a readable directory", o.Repo)
	}
	cfg, err := loadConfig(o.Repo, o.Config)
	if err != nil {
		return nil, err
	}
	return engineFor(o, cfg, os.DirFS(o.Repo), o.Repo, log, stderr)
}

// engineFor is the pipeline for cfg over fsys, which repo names in messages.
func engineFor(o commonOptions, cfg *config.Config, fsys fs.FS, repo string, log *slog.Logger, stderr io.Writer) (*engine, error) {
	mirrors := cfg.Mirrors()
	for h, u := range o.Mirrors {
		mirrors[h] = u
	}
	reg := registry.NewClient(
		registry.WithMirrors(mirrors),
		registry.WithCredentials(credentials(cfg, mirrors)),
		registry.WithConcurrency(o.Concurrency),
		registry.WithLogger(log),
	)
	if err := reg.Err(); err != nil {
		// --mirror flags can make a conflict the config file alone has not.
		return nil, fmt.Errorf("registries: %w", err)
	}
	return &engine{repo: repo, fsys: fsys, cfg: cfg, reg: reg, log: log, stderr: stderr}, nil
}

// credentials maps the host actually contacted (the mirror's, when a
// registry has one) to the credentials the config names for it. Secrets come
// from the environment only; the config holds variable names.
func credentials(cfg *config.Config, mirrors map[string]string) map[string]registry.Credentials {
	creds := map[string]registry.Credentials{}
	for host, r := range cfg.Registries {
		if r.Username == "" && r.PasswordEnv == "" {
			continue
		}
		contacted := host
		if m, ok := mirrors[host]; ok {
			if u, err := url.Parse(m); err == nil {
				contacted = u.Host
			}
		}
		creds[contacted] = registry.Credentials{Username: r.Username, Password: os.Getenv(r.PasswordEnv)}
	}
	return creds
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
		Group:    groupsOf(e.cfg),
		Promoted: promotedOf(e.cfg),
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

// exitFor is the status a plan earns: 2 when a lookup failed.
func exitFor(p *plan.Plan) int {
	for _, pr := range p.Problems {
		if pr.Failed {
			return exitPartial
		}
	}
	return exitOK
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
