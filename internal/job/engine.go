package job

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"sync"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitsource"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/safefs"
	"github.com/imagebot/imagebot/internal/scan"
)

// engine is the pipeline up to the plan, built once per command.
type engine struct {
	repo string // what fsys is, for messages: a directory or a commit
	fsys fs.FS  // the files to scan
	cfg  *config.Config
	reg  *registry.Client
	// charts lists chart versions in HTTP Helm repositories: one client
	// per run, so that each index is fetched once.
	charts *chartrepo.Client
	// git lists the tags of git repositories, once each per run.
	git  *gitsource.Client
	insp *inspect.Inspector
	// identities are the config's keyless signature identities, compiled
	// once per config (by their source), anchored as the gate matches them.
	identities map[string]*regexp.Regexp
	log        *slog.Logger
	progress   Progress
	shared     bool // reg serves other repositories too (serve's pool)
	// creds are the credentials the config gives, by contacted host: a
	// refusal names the variable they came from.
	creds map[string]registry.Credentials
	// The dashboard's record of first sightings (run only; see readDashboard).
	firstSeenTimes
	builds plan.BuildTimes // build times kept in --cache; nil without
	images []string        // Options.Images: only these are planned

}

// newEngine is the pipeline over the working tree of o.Repo.
func newEngine(o *Options) (*engine, error) {
	if err := checkRepoDir(o.Repo); err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(o.Repo, o.Config)
	if err != nil {
		return nil, err
	}
	// Through an os.Root: a path the config names (signature.key) cannot
	// lead out of the repository, nor open a named pipe.
	return engineFor(o, cfg, safefs.DirFS(o.Repo), o.Repo, o.logger())
}

// tipEngine fetches the default branch into a temporary clone and builds
// the pipeline over its tip, with the config in that same tree: what run
// and rollback commit onto. The checkout in o.Repo only names the remote,
// so a stale or dirty one can neither fail them nor mislead them. The
// caller closes the session.
func tipEngine(ctx context.Context, o *Options, conn gitops.Options) (*gitops.Session, *engine, error) {
	conn.GitCache, conn.GitCacheMaxBytes = o.Registry.Cache.git()
	sess, err := gitops.Open(ctx, conn)
	if err != nil {
		return nil, nil, explainForge(err, conn)
	}
	cfg, err := treeConfig(sess, o.Config)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	e, err := engineFor(o, cfg, sess.FS(), tipName(sess), conn.Logger)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, e, nil
}

// engineFor is the pipeline for cfg over fsys, which repo names in messages.
func engineFor(o *Options, cfg *config.Config, fsys fs.FS, repo string, log *slog.Logger) (*engine, error) {
	opts, creds, err := registryOptions(o, cfg, log)
	if err != nil {
		return nil, err
	}
	cached, err := o.Registry.Cache.registryOptions()
	if err != nil {
		return nil, err
	}
	opts = append(opts, cached...)
	var reg *registry.Client
	if o.Pool != nil {
		reg = o.Pool.client(settingsKey(o, cfg), opts)
	} else {
		reg = registry.NewClient(opts...)
	}
	if err := reg.Err(); err != nil {
		// --mirror flags can make a conflict the config file alone has not.
		return nil, fmt.Errorf("registries: %w", err)
	}
	// Keys are read from the tree being planned: the working tree for
	// plan and apply, the default branch's tip for run. serve's
	// repositories share one trust root per run.
	trust := o.Registry.Cache.trust()
	if o.Pool != nil {
		trust = o.Pool.trust
	}
	insp := inspect.New(reg, inspect.WithKeys(fsys), inspect.WithTrust(trust))
	identities, err := checkSignatures(cfg, insp)
	if err != nil {
		return nil, err
	}
	charts, err := chartRepos(o, cfg, creds, log)
	if err != nil {
		return nil, err
	}
	git, err := gitSources(o, cfg, creds, log)
	if err != nil {
		return nil, err
	}
	return &engine{repo: repo, fsys: fsys, cfg: cfg, reg: reg, charts: charts, git: git, insp: insp, identities: identities,
		log: log, progress: o.progress(), shared: o.Pool != nil, creds: creds,
		builds: o.Registry.Cache.builds(log), images: o.Images}, nil
}

// flush writes what the run learnt to the registry cache (--cache). A
// client serve shares between repositories is flushed once, when the run
// is done.
func (e *engine) flush() {
	if !e.shared {
		e.reg.Flush()
	}
}

// cost is what the command cost the registries and the HTTP chart
// repositories so far, logged; a registry client serve shares is logged
// once per run instead, by the Pool (the chart client is the command's own).
func (e *engine) cost() ([]registry.HostStats, []chartrepo.HostStats) {
	cost := e.reg.Stats()
	if !e.shared {
		logCost(e.log, cost)
	}
	charts := e.charts.Stats()
	logChartCost(e.log, charts)
	logGitCost(e.log, e.git)
	return cost, charts
}

// checkSignatures prepares every signature the policies ask for, so that
// a problem stops the command at start (exit 1) with the policy's line,
// once, rather than failing every reference it covers: it reads each key
// and compiles each keyless identity, which it returns by source.
func checkSignatures(cfg *config.Config, insp *inspect.Inspector) (map[string]*regexp.Regexp, error) {
	var errs config.Errors
	identities := map[string]*regexp.Regexp{}
	for _, p := range cfg.Policies {
		switch s := p.Signature; {
		case s == nil:
		case s.Key != "":
			if err := insp.Check(context.Background(), gate.Signature{Key: s.Key}); err != nil {
				errs = append(errs, config.Error{File: cfg.File, Line: p.Line,
					Msg: fmt.Sprintf("%v: commit the signer's public key (cosign.pub) there, or correct the path", err)})
			}
		case identities[s.Identity] == nil:
			id, err := s.IdentityRegexp()
			if _, rawErr := regexp.Compile(s.Identity); rawErr != nil {
				err = rawErr // quotes what the user wrote, not our anchoring
			}
			if err != nil {
				errs = append(errs, config.Error{File: cfg.File, Line: p.Line,
					Msg: fmt.Sprintf("signature identity %q: %v: write an RE2 regexp of the signer's certificate identity", s.Identity, err)})
				continue
			}
			identities[s.Identity] = id
		}
	}
	if len(errs) > 0 {
		return nil, &errs
	}
	return identities, nil
}

// scan finds the image references in the files the config includes.
func (e *engine) scan(ctx context.Context) (scan.Result, error) {
	return scan.FS(ctx, e.fsys, e.cfg.Included, scan.WithMaxFileSize(int64(e.cfg.MaxFileSize)))
}

// plan scans the repository and decides every reference.
func (e *engine) plan(ctx context.Context) (*plan.Plan, scan.Result, error) {
	res, err := e.scan(ctx)
	if err != nil {
		return nil, res, fmt.Errorf("scan %s: %w", e.repo, err)
	}
	e.log.Debug("scanned", "files", res.Files, "references", len(res.Refs))
	res = e.only(res)
	p, err := plan.Build(ctx, res, plan.Options{
		Registry:  e.reg,
		Charts:    chartIndexes{e.charts},
		Git:       gitTags{e.git},
		Policy:    e.policies(),
		Scope:     e.cfg.Scope,
		Gates:     e.gates(),
		Inspector: e.insp,
		Progress:  e.progress.Lookups,
		Logger:    e.log,
		Group:     groupsOf(e.cfg),
		Promoted:  promotedOf(e.cfg),
		FirstSeen: e.firstSeen,
		// The update within the major is proposed by run, and shown by
		// plan, as the pull request it will be.
		SeparateMajorMinor: e.cfg.MajorMinorSeparate(),
		SeenSince:          e.seenSince,
		Builds:             e.builds,
	})
	e.progress.LookupsDone()
	if err != nil {
		return nil, res, err
	}
	confirmDigests(ctx, e.reg, p) // a digest from --cache is confirmed before anything writes it
	explainRefused(p.Problems, e.creds)
	for _, s := range e.reg.Stats() {
		// While planning, manifest and blob GETs and referrers are what the
		// gates (and policies' order: created) cost: a plan without
		// either makes none. (A client serve
		// shares between repositories counts for all of them: its cost is
		// logged once per run instead.)
		if !e.shared && s.ManifestGet+s.Blob+s.Referrers > 0 {
			e.log.Info("gate requests", "host", s.Host, "manifests", s.ManifestGet, "blobs", s.Blob, "referrers", s.Referrers)
		}
	}
	return p, res, nil
}

// gates turns each image's policy into the gates it asks for, once per
// image and policy scope, with the identities checkSignatures compiled.
func (e *engine) gates() func(image, file string) gate.Spec {
	var mu sync.Mutex
	cache := map[string]gate.Spec{}
	return func(image, file string) gate.Spec {
		mu.Lock()
		defer mu.Unlock()
		key := image + "\x00" + e.cfg.Scope(image, file)
		if s, ok := cache[key]; ok {
			return s
		}
		r := e.cfg.For(image, file)
		s := gate.Spec{
			MinAge:       r.MinAge,
			DigestSettle: r.DigestSettle,
			Platforms:    gate.Platforms{Keep: r.Platforms.Keep, List: r.Platforms.List},
		}
		if r.Signature != nil {
			// A keyless policy's identity was compiled by checkSignatures,
			// by its source.
			s.Signature = &gate.Signature{Key: r.Signature.Key, Identity: e.identities[r.Signature.Identity], Issuer: r.Signature.Issuer}
		}
		cache[key] = s
		return s
	}
}

// policies compiles each image's policy once per policy scope (see
// config.Scope). The config was validated on load, so an error here names
// a combination that only fails when merged.
func (e *engine) policies() func(image, file string) (*policy.Policy, error) {
	var mu sync.Mutex
	cache := map[string]*policy.Policy{}
	return func(image, file string) (*policy.Policy, error) {
		mu.Lock()
		defer mu.Unlock()
		key := image + "\x00" + e.cfg.Scope(image, file)
		if p, ok := cache[key]; ok {
			return p, nil
		}
		spec := e.cfg.For(image, file).Spec()
		if isChart(image) {
			spec = chartSpec(spec)
		}
		p, err := policy.New(spec)
		if err != nil {
			return nil, err
		}
		cache[key] = p
		return p, nil
	}
}

// planStatus is the error a finished plan earns: a partial failure when a
// lookup failed or a reference dangles, nil otherwise (a malformed manifest
// is only a warning).
func planStatus(p *plan.Plan) error {
	for _, pr := range p.Problems {
		if pr.Failed {
			return partial()
		}
	}
	return nil
}

// LoadConfig reads the config named by --config, resolved against the
// repository (not the working directory) when relative, or the
// repository's own .imagebot.yaml.
func LoadConfig(repo, file string) (*config.Config, error) {
	if file != "" {
		return config.LoadIn(repo, file)
	}
	return config.Find(repo)
}

// checkRepoDir fails, before any work, a command whose DIR is no directory.
func checkRepoDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("repository %s: not a readable directory", dir)
	}
	return nil
}
