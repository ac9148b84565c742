package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/serve"
	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"
)

// serveOptions are the flags of `serve`.
type serveOptions struct {
	commonOptions
	DryRun     bool
	Kubeconfig string // --kubeconfig; without one, in-cluster credentials
	Clones     []string
	Schedule   string
	Listen     string
	Workdir    string
	Shard      shardFlag
	Once       bool
	RunAtStart bool
	Parallel   count
	// GitLabGroups are --gitlab-group: their projects are cloned as
	// --clone's URLs are.
	GitLabGroups []string
	// ResetCheckout marks DIR as disposable: serve may hard-reset it.
	ResetCheckout bool
	// Hooks are the push hook flags (servehooks.go).
	Hooks hookFlags

	repoSet bool // --repo given, even as "."
}

func newServeCmd(f *factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	o := &serveOptions{commonOptions: newCommonOptions(f)}
	cmd := &cobra.Command{
		Use:   "serve [DIR]",
		Short: "Run on a schedule; serve /healthz, /readyz and /metrics",
		Long: `Serve runs the job of 'imagebot run' on a cron schedule, in a long-running
process, over one checkout (DIR or --repo) or over repositories it clones
(--clone, repeatable). Runs never overlap; a stop (SIGTERM) lets the current
run finish for up to 10 minutes.

Each run plans from origin's default branch, not from DIR's files. DIR is
left as it is: serve refuses it while it has uncommitted changes or untracked
files, since they are someone's work. --reset-checkout marks DIR as
disposable (a checkout only serve uses): it is then hard-reset to origin's
default branch before each run, as the --clone checkouts are. --dry-run
writes nothing, to DIR or to the remote.

/healthz answers 200 while the process serves; /readyz answers 200 only when
the last run exited 0; /metrics has Prometheus metrics. With --hook-secret-env
or --hook-oidc, POST /hooks/KIND takes push notifications (generic, github,
dockerhub, quay, harbor) and plans the notified image at once in the
repositories that reference it (docs/serve.md).

The schedule is --schedule, else the schedule: key of the config. With
--once, serve runs every repository once and exits with the worst status,
without a schedule or HTTP: for a Kubernetes CronJob, or an Indexed Job with
--shard auto/n.`,
		Example: `  # Two repositories, every weekday at 06:00
  GITHUB_TOKEN=... imagebot serve --schedule "0 6 * * 1-5" \
    --clone https://github.com/acme/gitops --clone https://github.com/acme/platform

  # One pass, this pod's share of the list (Kubernetes Indexed Job)
  imagebot serve --once --shard auto/4 --workdir /work --clone https://github.com/acme/gitops`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.repoSet = cmd.Flags().Changed("repo") || len(args) > 0
			return orDefault(runF, runServe)(cmd.Context(), o)
		},
	}
	o.bind(cmd.Flags())
	o.bindForge(cmd.Flags())
	bindKubeconfig(cmd, &o.Kubeconfig)
	fs := cmd.Flags()
	fs.Lookup("repo").Usage = "the checkout `DIR` to serve, as the DIR argument; left as it is, and refused while it has uncommitted or untracked files"
	fs.BoolVarP(&o.DryRun, "dry-run", "n", false, "print the pull requests each run would open or change; write nothing")
	fs.BoolVar(&o.ResetCheckout, "reset-checkout", false, "DIR is disposable: hard-reset it to origin's default branch before each run, discarding its changes and untracked files")
	fs.StringArrayVar(&o.Clones, "clone", nil, "repository `URL` to clone into --workdir and serve instead of --repo (repeatable)")
	fs.StringArrayVar(&o.GitLabGroups, "gitlab-group", nil, "serve every project of the GitLab `GROUP` (its full path; subgroups included, archived projects not), listed at start-up and cloned as --clone's (repeatable)")
	fs.StringVar(&o.Schedule, "schedule", "", "cron `SPEC`: five fields, @hourly, \"@every 30m\", optionally after CRON_TZ=Area/City (default: schedule: in the config)")
	fs.StringVar(&o.Listen, "listen", ":8080", "`ADDRESS` for /healthz, /readyz and /metrics")
	fs.StringVar(&o.Workdir, "workdir", "", "`DIR` for the --clone checkouts (default: a temporary directory)")
	fs.Var(&o.Shard, "shard", "serve only the --clone URLs (and --gitlab-group projects) in share i of n (i/n); auto/n takes i from $JOB_COMPLETION_INDEX")
	fs.BoolVar(&o.Once, "once", false, "run every repository once and exit with the worst status (no schedule, no HTTP)")
	fs.BoolVar(&o.RunAtStart, "run-at-start", true, "run at start-up too, not only on the schedule")
	o.Hooks.bind(fs)
	o.Parallel = count{min: 1}
	fs.Var(&o.Parallel, "parallel", fmt.Sprintf("at most `N` repositories at once (default %d: 8, or 4 on one CPU)", defaultParallel()))
	return cmd
}

// shardFlag is --shard, checked when parsed.
type shardFlag struct {
	shard serve.Shard
	set   bool
}

func (s *shardFlag) String() string {
	if !s.set {
		return ""
	}
	return s.shard.String()
}
func (s *shardFlag) Type() string { return "i/n" }

func (s *shardFlag) Set(v string) error {
	sh, err := serve.ParseShard(v)
	if err != nil {
		return err
	}
	s.shard, s.set = sh, true
	return nil
}

func runServe(ctx context.Context, o *serveOptions) error {
	srv, err := newServer(ctx, o)
	if err != nil {
		return err
	}
	switch st := srv.Run(ctx); st {
	case serve.OK:
		return nil
	case serve.Partial:
		return errPartial
	default:
		return errSilent // the runs logged why
	}
}

// newServer checks serve's options, all before any clone or run, and
// builds the server with `run` as its job.
func newServer(ctx context.Context, o *serveOptions) (*serve.Server, error) {
	clone := len(o.Clones) > 0 || len(o.GitLabGroups) > 0
	if clone && o.repoSet {
		if len(o.Clones) == 0 {
			return nil, usagef("DIR (--repo) and --gitlab-group: give one (--gitlab-group serves the group's projects, DIR a checkout you keep)")
		}
		return nil, usagef("DIR (--repo) and --clone: give one (--clone serves the URLs it clones, DIR a checkout you keep)")
	}
	if o.ResetCheckout && clone {
		return nil, usagef("--reset-checkout is for DIR (--repo); the --clone checkouts are serve's own and always reset")
	}
	if o.Shard.set && !clone {
		return nil, usagef("--shard splits the --clone list; it needs --clone or --gitlab-group")
	}
	if len(o.GitLabGroups) > 0 {
		// The flag speaks to GitLab alone: job says whether --forge agrees.
		if err := job.PinForge(o.Forge.value, gitops.GitLab); err != nil {
			return nil, usagef("--gitlab-group lists GitLab projects, and --forge %s names another host: drop one", o.Forge.value)
		}
	}
	// The flags first, then the environment: a mistake on the command
	// line is heard about whatever the credentials.
	shard, err := o.Shard.shard.Resolve(o.Env.JobIndex)
	if err != nil {
		return nil, usagef("--shard %w", err)
	}
	var sched cron.Schedule
	if o.Schedule != "" || !o.Once {
		// Parsed even with --once: a schedule that cannot fire is a
		// mistake to hear about now, not when the CronJob becomes a Deployment.
		if sched, err = o.schedule(); err != nil {
			return nil, err
		}
	}
	hooks, err := o.hookOptions()
	if err != nil {
		return nil, err
	}
	jo, err := o.hostJob(o.DryRun)
	if err != nil {
		return nil, err
	}
	if len(o.GitLabGroups) > 0 {
		jo.Forge.Kind = gitops.GitLab // the projects are on GitLab, whatever else is set
	}
	acc := serveAccess(o, &jo)
	job.SetUpGit(acc.Kind) // serve clones before any run opens the host
	if !o.DryRun && !acc.Credentials() {
		return nil, acc.NoToken(job.CmdServe)
	}
	if err := o.addGitLabGroups(ctx, &jo); err != nil {
		return nil, err
	}
	if acc.Credentials() {
		if err := checkServeHosts(o, acc.Server); err != nil {
			return nil, err
		}
	}
	if err := acc.LearnUser(ctx); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	// With a GitHub App, clones and fetches use the App's installation
	// token for each repository, as runs do: an App alone serves private
	// repositories too.
	var tokenFor func(context.Context, string) (string, error)
	if app := acc.App; app != nil {
		tokenFor = func(ctx context.Context, rawURL string) (string, error) {
			repo, err := gitops.RepositoryFromURL(rawURL)
			if err != nil {
				return "", err
			}
			return app.Token(ctx, jo.GitHubSettings().APIURL, repo)
		}
	}
	// The server's own lines and every repository's run share stdout and
	// stderr, from several goroutines at once.
	o.IO.Out, o.IO.ErrOut = &lockedWriter{w: o.IO.Out}, &lockedWriter{w: o.IO.ErrOut}
	log := o.logger()
	jo.Logger, jo.Progress = log, newJobProgress(o.IO.ErrOut, o.Env)
	jo.Kube = job.Kube{Kubeconfig: o.Kubeconfig, InCluster: true}
	return serve.New(serve.Options{
		Dir: o.Repo, ResetCheckout: o.ResetCheckout, DryRun: o.DryRun, Clones: o.Clones, Workdir: o.Workdir, Shard: shard, Token: acc.Token, TokenVar: acc.TokenVar, User: acc.User, TokenFor: tokenFor,
		Schedule: sched, Once: o.Once, RunAtStart: o.RunAtStart, Listen: o.Listen,
		Drain: 10 * time.Minute, Logger: log,
		Parallel: cmp.Or(o.Parallel.n, defaultParallel()),
		Job:      jo,
		Out:      o.IO.Out,
		Report:   o.reportRepository,
		Hooks:    hooks,
	})
}

// reportRepository says what `run` did on one of serve's repositories, as
// `imagebot run` says it, on that repository's output (w), and prints the
// error its run ended with.
func (o *serveOptions) reportRepository(w io.Writer, rep *job.RunReport, err error) {
	o.reportRun(w, rep, o.DryRun)
	printErrorFor(o.IO.ErrOut, "imagebot run", err, o.Env.Actions)
}

// schedule parses --schedule, else the config's schedule:. A relative
// --config is a path in the repository, as for run: with --clone the
// repositories are not there yet, so only --schedule or an absolute
// --config can supply it.
func (o *serveOptions) schedule() (cron.Schedule, error) {
	if o.Schedule != "" {
		sched, err := serve.ParseSchedule(o.Schedule)
		if err != nil {
			return nil, usagef("--schedule %w", err)
		}
		return sched, nil
	}
	var cfg *config.Config
	var err error
	switch {
	case len(o.Clones) == 0:
		cfg, err = job.LoadConfig(o.Repo, o.Config)
	case o.Config != "" && filepath.IsAbs(o.Config):
		cfg, err = config.Load(o.Config)
	default:
		return nil, usagef("no schedule: pass --schedule (with --clone the repositories' own configs, and a relative --config, are read only after cloning; an absolute --config is read at start)")
	}
	if err != nil {
		return nil, err
	}
	if cfg.Schedule == "" {
		return nil, usagef("no schedule: pass --schedule or set schedule: in %s (e.g. '0 6 * * 1-5' or '@every 6h')", cmp.Or(cfg.File, ".imagebot.yaml"))
	}
	sched, err := serve.ParseSchedule(cfg.Schedule)
	if err != nil {
		return nil, fmt.Errorf("schedule: in %s %w", cfg.File, err)
	}
	return sched, nil
}
