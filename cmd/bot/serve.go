package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/robfig/cron/v3"
)

// serveOptions are the flags of `serve`.
type serveOptions struct {
	commonOptions
	DryRun     bool
	Clones     listFlag
	Schedule   string
	Listen     string
	Workdir    string
	Shard      string
	Once       bool
	RunAtStart bool
	Parallel   int

	repoSet bool // --repo was given explicitly
}

func (o *serveOptions) bind(fs *flag.FlagSet) {
	o.commonOptions.bind(fs)
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the pull requests each run would open or change, write nothing")
	fs.Var(&o.Clones, "clone", "repository `URL` to clone into --workdir and serve instead of --repo (repeatable)")
	fs.StringVar(&o.Schedule, "schedule", "", "cron `spec`: five fields, @hourly, \"@every 30m\", optionally after CRON_TZ=Area/City (default: schedule: in the config)")
	fs.StringVar(&o.Listen, "listen", ":8080", "`address` for /healthz, /readyz and /metrics")
	fs.StringVar(&o.Workdir, "workdir", "", "`dir` for the --clone checkouts (default: a temporary directory)")
	fs.StringVar(&o.Shard, "shard", "", "`i/n`: serve only the --clone URLs in share i of n; auto/n takes i from $JOB_COMPLETION_INDEX")
	fs.BoolVar(&o.Once, "once", false, "run every repository once and exit with the worst status (no schedule, no HTTP)")
	fs.BoolVar(&o.RunAtStart, "run-at-start", true, "run at start-up too, not only on the schedule")
	fs.IntVar(&o.Parallel, "parallel", 0, fmt.Sprintf("repositories run at once (default %d: 8, or 4 on one CPU)", defaultParallel()))
}

// listFlag collects a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint([]string(*l)) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseServe parses serve's flags; tests use it to reach the same options.
func parseServe(args []string, stderr io.Writer) (serveOptions, *flag.FlagSet, error) {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.bind(fs)
	err := fs.Parse(args)
	fs.Visit(func(f *flag.Flag) { o.repoSet = o.repoSet || f.Name == "repo" })
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		fmt.Fprintf(stderr, "imagebot serve: %v\n", err)
	}
	if err == nil && o.Parallel < 0 {
		err = fmt.Errorf("--parallel %d: want 1 or more (0: the default)", o.Parallel)
		fmt.Fprintf(stderr, "imagebot serve: %v\n", err)
	}
	return o, fs, err
}

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, _, err := parseServe(args, stderr)
	if err != nil {
		return parseStatus(err)
	}
	s, err := newServer(o, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot serve: %v\n", err)
		return exitUsage
	}
	return s.serve(ctx)
}

// server runs the job on schedule and reports on it over HTTP.
type server struct {
	opts    serveOptions
	log     *slog.Logger
	targets []target
	sched   cron.Schedule // nil with --once
	token   string
	metrics *serveMetrics
	cleanup func()

	// job is one run on one checkout. It is runJob outside tests; tests
	// swap it to count, sleep and fail without a registry or GitHub.
	job func(ctx context.Context, t target, pool *registryPool) (runSummary, int)
	// drain bounds how long a stop waits for the current run.
	drain time.Duration
	// onListen, when set, learns the address actually listened on (tests
	// listen on port 0).
	onListen func(addr string)

	running sync.Mutex // held for the length of a run: runs never overlap
	mu      sync.Mutex // guards last
	last    lastRun
}

// lastRun is what /readyz reports.
type lastRun struct {
	done bool
	code int
	end  time.Time
}

func newServer(o serveOptions, stdout, stderr io.Writer) (*server, error) {
	log, err := o.logger(stderr)
	if err != nil {
		return nil, err
	}
	s := &server{opts: o, log: log, token: os.Getenv("GITHUB_TOKEN"), metrics: newServeMetrics(),
		drain: 10 * time.Minute, cleanup: func() {}}
	// The repositories of a run go at once: each one's output is written
	// in one piece when it is done, and log lines go out whole.
	out, errOut := &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	s.job = func(ctx context.Context, t target, pool *registryPool) (runSummary, int) {
		ro := runOptions{commonOptions: o.commonOptions, DryRun: o.DryRun, repository: t.name}
		ro.Repo, ro.pool = t.dir, pool
		buf := &repoOutput{w: out}
		defer buf.flush()
		return runJob(ctx, ro, buf, errOut)
	}
	if s.targets, err = s.resolveTargets(); err != nil {
		return nil, err
	}
	if !o.Once {
		if s.sched, err = s.schedule(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// schedule parses --schedule, else the config's schedule:. With --clone the
// repositories are not there yet, so only a --config file can supply it.
func (s *server) schedule() (cron.Schedule, error) {
	spec, from := s.opts.Schedule, "--schedule"
	if spec == "" {
		var cfg *config.Config
		var err error
		switch {
		case s.opts.Config != "":
			cfg, err = config.Load(s.opts.Config)
		case len(s.opts.Clones) == 0:
			cfg, err = config.Find(s.opts.Repo)
		default:
			return nil, errors.New("no schedule: pass --schedule (with --clone the repositories' own configs are read only after cloning)")
		}
		if err != nil {
			return nil, err
		}
		spec, from = cfg.Schedule, "schedule: in "+cfg.File
		if spec == "" {
			return nil, errors.New("no schedule: pass --schedule or set schedule: in .imagebot.yaml (e.g. '0 6 * * 1-5' or '@every 6h')")
		}
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", from, spec, err)
	}
	if sched.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("%s %q never fires", from, spec)
	}
	return sched, nil
}

// serve runs until ctx is canceled (SIGTERM, SIGINT), or once with --once.
func (s *server) serve(ctx context.Context) int {
	defer s.cleanup()
	// Runs outlive ctx: a stop lets the current run finish (a half-done run
	// is safe, but wastes the registry requests it made), up to s.drain.
	runCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	if s.opts.Once {
		done := make(chan int, 1)
		s.running.Lock()
		go func() { defer s.running.Unlock(); done <- s.runAll(runCtx) }()
		select {
		case code := <-done:
			return code
		case <-ctx.Done():
			return s.stop(done, abort, exitPartial)
		}
	}

	ln, err := net.Listen("tcp", s.opts.Listen)
	if err != nil {
		s.log.Error("cannot listen", "address", s.opts.Listen, "err", err)
		return exitUsage
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(c)
	}()
	s.log.Info("listening", "address", ln.Addr().String(), "repositories", len(s.targets))
	if s.onListen != nil {
		s.onListen(ln.Addr().String())
	}

	var wg sync.WaitGroup
	tick := func() {
		if !s.running.TryLock() {
			s.metrics.skipped.Inc()
			s.log.Warn("skipping a scheduled run: the previous one is still going")
			return
		}
		wg.Add(1)
		go func() { defer wg.Done(); defer s.running.Unlock(); s.runAll(runCtx) }()
	}
	if s.opts.RunAtStart {
		tick()
	}
	for {
		next := s.sched.Next(time.Now())
		s.log.Debug("next run", "at", next)
		timer := time.NewTimer(time.Until(next))
		select {
		case <-timer.C:
			tick()
		case <-ctx.Done():
			timer.Stop()
			done := make(chan int, 1)
			go func() { wg.Wait(); done <- exitOK }()
			return s.stop(done, abort, exitOK)
		}
	}
}

// stop waits up to s.drain for the current run, then aborts it. A stop is
// asked for, so it exits 0; only --once reports an aborted run as partial.
func (s *server) stop(done <-chan int, abort func(), aborted int) int {
	s.log.Info("stopping: waiting for the current run to finish", "at most", s.drain)
	select {
	case code := <-done:
		if !s.opts.Once {
			code = exitOK
		}
		return code
	case <-time.After(s.drain):
	}
	s.log.Error("the current run did not finish in time; aborting it", "waited", s.drain)
	abort()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a job that ignores its context
	}
	return aborted
}

// runAll runs the job once on every target, up to --parallel at once with
// registry clients shared for the run, and returns the worst status: 1
// (nothing done for a repository) over 2 (some of it failed) over 0.
func (s *server) runAll(ctx context.Context) int {
	start := time.Now()
	s.metrics.inProgress.Set(1)
	defer s.metrics.inProgress.Set(0)
	pool := newRegistryPool()
	var mu sync.Mutex
	worst, updates := exitOK, 0
	g := make(chan struct{}, cmp.Or(s.opts.Parallel, defaultParallel()))
	var wg sync.WaitGroup
	for _, t := range s.targets {
		g <- struct{}{}
		wg.Go(func() {
			defer func() { <-g }()
			sum, code := s.runOne(ctx, t, pool)
			mu.Lock()
			defer mu.Unlock()
			s.metrics.repoDone(sum)
			updates += sum.Updates
			if code == exitUsage || (code == exitPartial && worst == exitOK) {
				worst = code
			}
		})
	}
	wg.Wait()
	cost := pool.stats()
	s.metrics.registryDone(cost)
	logCost(s.log, cost)
	if c := s.opts.Cost.opened; c != nil && c.c != nil {
		// Between runs, the cache is brought back under its bound.
		if _, err := c.c.Prune(); err != nil {
			s.log.Warn("cannot prune the cache", "err", err)
		}
	}
	end := time.Now()
	s.metrics.runDone(worst, updates, end.Sub(start), end)
	s.mu.Lock()
	s.last = lastRun{done: true, code: worst, end: end}
	s.mu.Unlock()
	s.log.Info("run finished", "status", worst, "updates", updates, "took", end.Sub(start).Round(time.Millisecond))
	return worst
}

// runOne brings one checkout up to date with origin, then runs the job on it.
func (s *server) runOne(ctx context.Context, t target, pool *registryPool) (runSummary, int) {
	log := s.log.With("repository", t.label())
	if err := s.sync(ctx, t); err != nil {
		log.Error("cannot update the checkout; skipping this repository", "err", err)
		return runSummary{Failed: 1}, exitUsage
	}
	sum, code := s.job(ctx, t, pool)
	log.Info("repository done", "status", code, "updates", sum.Updates,
		"opened", sum.Opened, "updated", sum.Updated, "closed", sum.Closed, "failed", sum.Failed)
	return sum, code
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	// /healthz says the process serves; it never depends on registries or
	// GitHub, so an outage there does not get the pod restarted.
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", s.readyz)
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{Registry: s.metrics.reg}))
	return mux
}

// readyz is 200 only when the last run finished with status 0.
func (s *server) readyz(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	l := s.last
	s.mu.Unlock()
	switch {
	case !l.done:
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "not ready: no run has finished yet\n")
	case l.code != exitOK:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: the last run (finished %s) exited with status %d (%s); see the logs\n",
			l.end.UTC().Format(time.RFC3339), l.code, resultOf(l.code))
	default:
		fmt.Fprintf(w, "ready: the last run finished %s\n", l.end.UTC().Format(time.RFC3339))
	}
}
