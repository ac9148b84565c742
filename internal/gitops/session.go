package gitops

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

// Session is one repository as a run sees it: the default branch's tip,
// fetched once into a temporary clone that Close removes. The plan is made
// from that tip's tree (FS) and the pull requests are built on that same
// commit (Run), so a stale or dirty checkout can neither fail a run nor
// mislead it.
type Session struct {
	o    Options
	h    Forge
	rm   *remote
	base string
	tip  *object.Commit
	fsys *treeFS
	hist *history
}

// withDefaults is o with what an unset Logger, MaxWait and Clock mean.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Minute
	}
	if o.Clock == nil {
		o.Clock = forge.RealClock{}
	}
	return o
}

// Open asks the host (Options.Forge) for the default branch and fetches it into a temporary
// clone (TMPDIR's), which the caller removes with Close. The local
// checkout is not touched, nor even read beyond its origin URL.
func Open(ctx context.Context, o Options) (_ *Session, err error) {
	o = o.withDefaults()
	h, err := newForge(ctx, o)
	if err != nil {
		return nil, err
	}
	repo, err := h.Repository(ctx)
	if err != nil {
		return nil, err
	}
	base := repo.DefaultBranch
	user, creds := h.GitCredentials()
	var cache *packCache
	if o.GitCache != "" {
		cache = openPackCache(o.GitCache, o.URL, o.GitCacheMaxBytes, o.Logger)
	}
	rm, err := openRemote(ctx, o.URL, user, creds, base, cache, o.Logger)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			rm.close()
		}
	}()
	tip, err := rm.baseTip()
	if err != nil {
		return nil, err
	}
	fsys, err := newTreeFS(rm.repo.Storer, tip)
	if err != nil {
		return nil, err
	}
	o.Logger.Debug("fetched the default branch", "branch", base, "commit", tip.Hash.String())
	return &Session{o: o, h: h, rm: rm, base: base, tip: tip, fsys: fsys, hist: newHistory(rm.repo.Storer, base, tip)}, nil
}

// Close removes the session's clone. FS and the history cannot be read
// after it; closing again does nothing.
func (s *Session) Close() error { return s.rm.close() }

// FS is the default branch's tip as a read-only file system: what `run`
// scans and reads its config from. It holds directories and regular files;
// symlinks and submodules are not files to scan and are left out. It is
// safe for concurrent reads, but not while Run is going.
func (s *Session) FS() fs.FS { return s.fsys }

// Base is the default branch's name, e.g. "main".
func (s *Session) Base() string { return s.base }

// Commit is the hash of the default branch's tip that FS holds.
func (s *Session) Commit() string { return s.tip.Hash.String() }

// Run turns the plan, made from FS, into pull requests: for each image
// stream one branch holding one commit on the tip, and one PR. It recomputes
// everything from the remote's branches and PRs, so reruns are idempotent.
// A run with nothing to do costs the same few API requests whatever the
// number of updates: one repository GET (in Open) and one listing of open
// PRs (a page per 100 of them).
func (s *Session) Run(ctx context.Context, p *plan.Plan, o RunOptions) (*Result, error) {
	if o.BranchPrefix == "" {
		o.BranchPrefix = defaultBranchPrefix
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	r := &runner{o: o, log: s.o.Logger, clock: s.o.Clock, h: s.h, rm: s.rm, tip: s.tip, base: s.base, res: &Result{}}
	if o.Onboarding != nil {
		return r.onboard(ctx, p)
	}
	if o.SignedCommits {
		if _, ok := s.h.(SignedCommits); !ok {
			return nil, errNoSignedCommits(s.h)
		}
	}
	open, err := r.openChanges(ctx)
	if isRateLimit(err) {
		r.limit(err)
		for _, g := range groupsSplit(p, o.BranchPrefix, openBranches{}, o.SeparateMajorMinor) {
			r.res.RateLimited = append(r.res.RateLimited, g.Branch)
		}
		return r.res, nil
	}
	if err != nil {
		return nil, err
	}
	r.open = open
	if o.SignedCommits && (len(p.Updates) > 0 || len(open) > 0) {
		if err := r.useAPIAuthor(ctx); err != nil {
			return nil, err
		}
	}
	// The branches' tips are those Open's ref advertisement listed (the
	// default prefix's were fetched with the default branch): pushes are
	// leased against them, so a branch that moved since is never
	// overwritten, and a refused push looks at it again (pr.go).
	if err := s.rm.fetchBranches(ctx, o.BranchPrefix); err != nil {
		return nil, err
	}
	held := openBranches{carried: map[string][]string{}, holder: map[string]string{}}
	for branch, pr := range open {
		if m, ok := prMarker(pr); ok && m.Kind == "" {
			for _, mv := range m.Moves {
				held.carry(mv.Image, mv.From, o.SeparateMajorMinor && policy.Type(mv.From, mv.To) == "major", branch)
				held.holder[branch] = streamKey(mv.Image, mv.To)
			}
		}
	}
	gs := groupsSplit(p, o.BranchPrefix, held, o.SeparateMajorMinor)
	r.carriers = carriers(gs)
	r.res.Updates = map[string][]plan.Update{}
	for _, g := range gs {
		r.res.Updates[g.Branch] = g.Updates
	}
	asked, closedErr := r.loadClosed(ctx, gs)
	if isRateLimit(closedErr) {
		r.limit(closedErr)
	} else if closedErr != nil {
		r.log.Error("cannot tell which updates were declined", "err", closedErr)
	}
	gs, waiting := r.admit(ctx, gs, p)
	handled := map[string]bool{}
	for _, g := range gs {
		handled[g.Branch] = true
		if closedErr != nil && !r.limited && asked[g.Branch] {
			// Proposing it might repeat a declined version; the
			// groups whose open PR carries them are still done.
			r.res.Failed = append(r.res.Failed, fmt.Errorf("%s: %w", g.Branch, closedErr))
			continue
		}
		// Once limited, groups are still looked at: only those that
		// would write are left for the next run.
		err := r.group(ctx, g)
		switch {
		case isRateLimit(err):
			r.limit(err)
			r.res.RateLimited = append(r.res.RateLimited, g.Branch)
		case err != nil:
			r.log.Error("pull request failed", "branch", g.Branch, "err", err)
			r.res.Failed = append(r.res.Failed, fmt.Errorf("%s: %w", g.Branch, err))
		}
	}
	if !o.Partial {
		r.closeObsolete(ctx, p, handled)
		r.keepDashboard(ctx, p, gs, waiting)
	}
	return r.res, nil
}

// loadClosed finds the closed PRs that can tell whether a human declined
// what a group proposes. A group whose open PR already proposes exactly its
// updates needs none: the bot opened it after any decline, and a rerun with
// nothing to do asks nothing.
func (r *runner) loadClosed(ctx context.Context, gs []group) (asked map[string]bool, err error) {
	var ask []string
	asked = map[string]bool{}
	for _, g := range gs {
		if pr := r.open[g.Branch]; pr == nil || !proposesAll(pr, g) {
			ask = appendNew(ask, g.Branch)
			asked[g.Branch] = true
			if g.Major && g.Kind == "" {
				// Majors declined before separateMajorMinor (decliner).
				ask = appendNew(ask, strings.TrimSuffix(g.Branch, majorSuffix))
			}
			if g.Kind == plan.KindRollback {
				continue
			}
			// A merged rollback declines what it rolled back from.
			for _, img := range g.images() {
				if b := rollbackBranch(r.o.BranchPrefix, img); !slices.Contains(ask, b) {
					ask = append(ask, b)
				}
			}
		}
	}
	closed, err := r.h.ClosedChanges(ctx, r.query(Query{}), ask)
	if err != nil {
		return asked, err
	}
	r.closed = r.bots(closed)
	return asked, nil
}

// bots keeps the closed PRs that the bot opened (mine): anyone can open a
// PR on a branch of the bot's name (from a fork, or as a writer) with a
// marker in it and close it, and that must not decline a version.
func (r *runner) bots(closed map[string][]*Change) map[string][]*Change {
	out := map[string][]*Change{}
	for b, prs := range closed {
		for _, pr := range prs {
			if _, ok := prMarker(pr); !ok {
				continue
			}
			if r.mine(pr) {
				out[b] = append(out[b], pr)
			} else {
				r.log.Debug("ignoring a closed pull request the bot did not open", "branch", b, "number", pr.Number, "author", pr.Author)
			}
		}
	}
	return out
}

// proposesAll reports whether pr's marker proposes every update of g.
func proposesAll(pr *Change, g group) bool {
	m, ok := prMarker(pr)
	if !ok {
		return false
	}
	for _, u := range g.Updates {
		if !m.proposes(u) {
			return false
		}
	}
	return true
}

// limit records that the host asked for more patience than the run has:
// from now on the run writes nothing, and says so once.
func (r *runner) limit(err error) {
	if !r.limited {
		r.log.Warn(r.h.Name()+" rate limit beyond the longest wait: no more writes this run", "err", err)
	}
	r.limited = true
}

// openChanges is imagebot's open change requests by branch (mine): one
// listing of the repository's open ones, whatever the number of updates,
// of the bot's own where the host filters by author, kept when their head
// branch has the prefix. It is the one listing a run with nothing to do
// makes; who the bot is comes first (identify).
func (r *runner) openChanges(ctx context.Context) (map[string]*Change, error) {
	if err := r.identify(ctx); err != nil {
		return nil, err
	}
	cs, err := r.h.Changes(ctx, r.query(Query{State: "open", Prefix: r.o.BranchPrefix}))
	if err != nil {
		return nil, err
	}
	open := map[string]*Change{}
	for _, c := range cs {
		if r.mine(c) {
			open[c.Head] = c
		} else {
			r.log.Debug("leaving alone a pull request the bot did not open", "branch", c.Head, "number", c.Number, "author", c.Author)
		}
	}
	return open, nil
}
