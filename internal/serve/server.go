package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/registry"
)

// pass is one run over every checkout, with what its repositories share
// (a job.Pool of registry clients, so that a listing 100 repositories need
// is fetched once). each runs one repository, already brought up to date,
// possibly several at once; done, when set, is called once all are done
// and returns what the pass cost the registries, for the metrics.
type pass struct {
	each func(ctx context.Context, t Target) (job.Summary, Status)
	done func() []registry.HostStats
}

// Options say what to serve, when, and where to report.
type Options struct {
	// Dir is one existing checkout to serve. It is someone's work: it is
	// left as it is, and refused while it has uncommitted changes or
	// untracked files (a *DirtyError), unless ResetCheckout says it is
	// disposable. Ignored when Clones is set.
	Dir string
	// ResetCheckout lets serve hard-reset Dir to its origin's default
	// branch before each run, discarding whatever is in it.
	ResetCheckout bool
	// DryRun promises that nothing is written: Dir is neither checked
	// nor reset (serve's own clones are still cloned and updated).
	DryRun bool
	// Clones are repository URLs to clone into Workdir and serve.
	Clones []string
	// Workdir holds the clones; "" is a temporary directory, removed when
	// Run returns.
	Workdir string
	// Shard keeps only the Clones in one share of the list; the zero value
	// keeps them all.
	Shard Shard
	// Token is the https password for cloning and fetching (GITHUB_TOKEN,
	// as user x-access-token); "" for none. It never reaches a log.
	Token string
	// TokenVar names Token's variable in messages ("" is GITHUB_TOKEN),
	// and User is the https user it goes with ("" is x-access-token,
	// GitHub's; GitLab's is "oauth2").
	TokenVar, User string
	// TokenFor, when set, gives the password for one repository URL
	// instead of Token: a GitHub App's installation token, fresh for each
	// clone or fetch. What it returns is kept out of logs as Token is.
	TokenFor func(ctx context.Context, rawURL string) (string, error)

	// Schedule says when to run; nil only with Once.
	Schedule cron.Schedule
	// Once runs every repository once and returns, without HTTP.
	Once bool
	// RunAtStart runs at start-up too, not only on the schedule.
	RunAtStart bool
	// Listen is the address of /healthz, /readyz and /metrics.
	Listen string
	// Drain bounds how long a stop waits for the current run before
	// aborting it (default 10 minutes).
	Drain time.Duration

	// Parallel bounds the repositories a run works on at once (0: one).
	Parallel int
	// Job is what each repository's job.Run gets: serve sets the checkout
	// as Repo, the repository a clone was made from as GitHub.Repository,
	// DryRun, the repository's output as Out, and the run's Pool.
	Job job.Options
	// Out receives each repository's output (Job's Out and Report's),
	// whole, once its run is done, so that two repositories' lines never
	// interleave.
	Out io.Writer
	// Report, when set, writes what one repository's run did, or the
	// error it ended with, to w (the repository's output): the CLI's words.
	Report func(w io.Writer, rep *job.RunReport, err error)

	Logger *slog.Logger

	// Hooks turns push notifications on (hooks.go); the zero value has
	// none, and /hooks/ answers 404.
	Hooks HookOptions

	// newRun makes each run's pass; tests of scheduling swap in their own.
	newRun func() pass
}

// Server runs the job on schedule and reports on it over HTTP.
type Server struct {
	o       Options
	log     *slog.Logger
	targets []Target
	metrics *metrics
	cleanup func()

	// listen opens the HTTP listener, and sync brings a checkout up to
	// date; tests of scheduling swap in an in-memory listener and a sync
	// that does nothing, so that they run in a synctest bubble.
	listen func() (net.Listener, error)
	sync   func(context.Context, Target) error
	// onListen, when set, learns the address actually listened on.
	onListen func(addr string)

	queue  *hookQueue
	limits limiters
	oidc   *oidcVerifier
	// onPush handles one queued notification (handlePush); tests of the
	// queue swap in their own.
	onPush func(context.Context, queued)

	running runLock    // held for the length of a run: runs never overlap
	mu      sync.Mutex // guards last
	last    lastRun
}

// lastRun is what /readyz reports.
type lastRun struct {
	done   bool
	status Status
	end    time.Time
}

// New checks the options and works out the checkouts to serve (making the
// temporary work directory for clones); it clones nothing yet.
func New(o Options) (*Server, error) {
	if o.Schedule == nil && !o.Once {
		return nil, errors.New("no schedule")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Drain <= 0 {
		o.Drain = 10 * time.Minute
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	s := &Server{o: o, log: o.Logger, metrics: newMetrics(), cleanup: func() {}, queue: newHookQueue(), oidc: newOIDCVerifier(o.Hooks),
		running: make(runLock, 1)}
	if s.o.newRun == nil {
		s.o.newRun = s.jobPass
	}
	s.listen = func() (net.Listener, error) { return net.Listen("tcp", o.Listen) }
	s.sync = s.syncTarget
	s.onPush = s.handlePush
	var err error
	if s.targets, err = s.resolveTargets(); err != nil {
		return nil, err
	}
	// A checkout someone works in is refused at start, not only at the
	// first run, so that whoever started serve hears of it at once; a
	// directory that cannot be read is each run's to report.
	if len(o.Clones) == 0 && !o.DryRun && !o.ResetCheckout {
		var dirty *DirtyError
		if err := checkClean(o.Dir); errors.As(err, &dirty) {
			return nil, err
		}
	}
	return s, nil
}

// Run serves until ctx is canceled (SIGTERM, SIGINT), or runs once with
// Options.Once. It returns the worst status of the runs with Once; a stop
// asked for is OK otherwise, and a listener that cannot open is Failed.
func (s *Server) Run(ctx context.Context) Status {
	defer s.cleanup()
	// Runs outlive ctx: a stop lets the current run finish (a half-done run
	// is safe, but wastes the registry requests it made), up to Drain.
	runCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	if s.o.Once {
		done := make(chan Status, 1)
		s.running.Lock()
		go func() { defer s.running.Unlock(); done <- s.runAll(runCtx) }()
		select {
		case st := <-done:
			return st
		case <-ctx.Done():
			return s.stop(done, abort, Partial)
		}
	}

	ln, err := s.listen()
	if err != nil {
		s.log.Error("cannot listen", "address", s.o.Listen, "err", err)
		return Failed
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
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

	if s.o.Hooks.on() {
		// A hook's run in progress at a stop is aborted with runCtx
		// when Run returns: as a half-done run, it is safe.
		go s.hookWorker(runCtx)
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
	if s.o.RunAtStart {
		tick()
	}
	for {
		next := s.o.Schedule.Next(time.Now())
		s.log.Debug("next run", "at", next)
		timer := time.NewTimer(time.Until(next))
		select {
		case <-timer.C:
			tick()
		case <-ctx.Done():
			timer.Stop()
			done := make(chan Status, 1)
			go func() { wg.Wait(); done <- OK }()
			return s.stop(done, abort, OK)
		}
	}
}

// stop waits up to Drain for the current run, then aborts it. A stop is
// asked for, so it is OK; only Once reports an aborted run as partial.
func (s *Server) stop(done <-chan Status, abort func(), aborted Status) Status {
	s.log.Info("stopping: waiting for the current run to finish", "at most", s.o.Drain)
	select {
	case st := <-done:
		if !s.o.Once {
			st = OK
		}
		return st
	case <-time.After(s.o.Drain):
	}
	s.log.Error("the current run did not finish in time; aborting it", "waited", s.o.Drain)
	abort()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a job that ignores its context
	}
	return aborted
}

// runAll runs the job once on every target and returns the worst status.
func (s *Server) runAll(ctx context.Context) Status {
	start := time.Now()
	s.metrics.inProgress.Set(1)
	defer s.metrics.inProgress.Set(0)
	run := s.o.newRun()
	var (
		mu      sync.Mutex
		worst   = OK
		updates int
	)
	slots := make(chan struct{}, max(1, s.o.Parallel))
	var wg sync.WaitGroup
	for _, t := range s.targets {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			sum, st := s.runOne(ctx, run.each, t)
			mu.Lock()
			defer mu.Unlock()
			s.metrics.repoDone(sum)
			updates += sum.Updates
			worst = worse(worst, st)
		})
	}
	wg.Wait()
	if run.done != nil {
		s.metrics.registryDone(run.done())
	}
	end := time.Now()
	s.metrics.runDone(worst, updates, end.Sub(start), end)
	s.mu.Lock()
	s.last = lastRun{done: true, status: worst, end: end}
	s.mu.Unlock()
	s.log.Info("run finished", "status", int(worst), "updates", updates, "took", end.Sub(start).Round(time.Millisecond))
	return worst
}

// runOne brings one checkout up to date with origin, then runs each on it.
func (s *Server) runOne(ctx context.Context, each func(context.Context, Target) (job.Summary, Status), t Target) (job.Summary, Status) {
	log := s.log.With("repository", t.label())
	if err := s.sync(ctx, t); err != nil {
		log.Error("cannot update the checkout; skipping this repository", "err", err)
		return job.Summary{Failed: 1}, Failed
	}
	sum, st := each(ctx, t)
	log.Info("repository done", "status", int(st), "updates", sum.Updates,
		"opened", sum.Opened, "updated", sum.Updated, "closed", sum.Closed, "failed", sum.Failed)
	return sum, st
}

// jobPass is a run of job.Run over the checkouts: its repositories share
// registry clients and the keyless trust root (a job.Pool per run), each
// repository's output is written whole when it is done, and once all are
// done the pool logs the run's cost and brings the cache under its bound.
func (s *Server) jobPass() pass { return s.jobPassFor(job.NewPool(s.o.Job), nil) }

// jobPassFor is jobPass over pool, planning only images when set (a push
// hook's run).
func (s *Server) jobPassFor(pool *job.Pool, images []string) pass {
	return pass{
		each: func(ctx context.Context, t Target) (job.Summary, Status) {
			buf := &repoOutput{w: s.o.Out}
			defer buf.flush()
			o := s.jobOptions(t, pool, buf)
			o.Images = images
			rep, err := job.Run(ctx, o)
			if s.o.Report != nil {
				s.o.Report(buf, rep, err)
			}
			return rep.Summary, statusOf(err)
		},
		done: pool.Done,
	}
}

// jobOptions are the options of t's job.Run: its checkout, DryRun, its
// output and the run's pool. A clone's run is for the repository it was
// cloned from, whatever GITHUB_REPOSITORY says.
func (s *Server) jobOptions(t Target, pool *job.Pool, out io.Writer) job.Options {
	o := s.o.Job
	o.Repo, o.DryRun, o.Out, o.Pool = t.Dir, s.o.DryRun, out, pool
	if t.Repository != "" {
		o.GitHub.Repository = t.Repository
		// On GitLab the project's full path comes from the clone's
		// origin: its groups nest deeper than owner/name.
		o.GitLab.Project = ""
	}
	return o
}

// statusOf is the status a run's error earns, as its exit status.
func statusOf(err error) Status {
	var partial *job.PartialError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &partial):
		return Partial
	}
	return Failed
}

// repoOutput is one repository's buffered output, written to w on flush.
type repoOutput struct {
	bytes.Buffer
	w io.Writer
}

func (r *repoOutput) flush() {
	if r.Len() > 0 {
		r.w.Write(r.Bytes())
		r.Reset()
	}
}
