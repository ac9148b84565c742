package plan

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
	"golang.org/x/sync/errgroup"
)

// Registry is what the plan needs from a registry client. It is asked
// with the names the scan parsed (scan.Ref.Repo), never with strings to
// parse again.
type Registry interface {
	Tags(ctx context.Context, repo name.Repository) ([]string, error)
	Digest(ctx context.Context, tag name.Tag) (string, error)
}

// Options steer Build.
type Options struct {
	Registry Registry
	// Charts lists the versions of charts in HTTP Helm repositories (nil:
	// such charts are problems); charts in OCI registries are the
	// Registry's.
	Charts ChartRepo
	// Git lists the tags of git repositories (nil: git references are
	// problems); see gitsource.go.
	Git GitRepo
	// Policy returns the compiled policy for a normalized image name
	// referenced in file (slash-separated, relative to the repository
	// root).
	Policy func(image, file string) (*policy.Policy, error)
	// Scope, when set, names which policy applies to a reference to image
	// in file, where that depends on the file (a policy with paths): the
	// references of one image are decided per scope, each with the Policy
	// and Gates of one of its files. Nil: one scope per image.
	Scope func(image, file string) string
	// Concurrency bounds the images decided at once (default 1024). It
	// bounds goroutines, not requests: the registry client bounds the
	// requests in flight per host, and every image waiting on one host
	// must not keep the images of another from starting.
	Concurrency int
	// Progress, when set, is called after each image is decided.
	Progress func(done, total int)
	Logger   *slog.Logger

	// Group, when set, names the config group of an image (zero Group:
	// none). The members of a lockstep group move to one tag together.
	Group func(image string) Group
	// Promoted, when set, names the environment of a file whose references
	// never take the registry's newest because they are promoted from
	// another environment (from); env and from are "" for other files. The
	// plan leaves such references alone with a notice: the promotion is
	// decided from the default branch's history (internal/rollout).
	Promoted func(file string) (env, from string)
	// SeparateMajorMinor (config separateMajorMinor) gives each major
	// update the newest version within the current major as its Minor,
	// for `run` to propose in a pull request of its own.
	SeparateMajorMinor bool

	// Gates returns the gates an image's policy asks for in file (nil:
	// none). They run only with an Inspector.
	Gates func(image, file string) gate.Spec
	// Inspector fetches what the gates need and checks that pinned
	// digests still exist. Without one, no gate runs and only tags are
	// checked for dangling references.
	Inspector Inspector
	// Now is the clock minAge and digestSettle compare build times with
	// (default time.Now), read once per Build.
	Now func() time.Time

	// FirstSeen is when earlier runs first saw each candidate digest, and
	// SeenSince the first of those runs (see sightings.go): minAge then
	// measures from the later of created and first sight, for digests
	// that appeared after SeenSince. Nil FirstSeen records nothing and
	// trusts created alone (Plan.Seen stays nil); an empty map with a zero
	// SeenSince starts the record.
	FirstSeen map[string]time.Time
	SeenSince time.Time
	// Builds keeps the build times an order policy read (nil: read
	// again each run, within the bound); see builds.go.
	Builds BuildTimes

	now  time.Time
	seen *sightings
}

func (o Options) gates(image, file string) gate.Spec {
	if o.Gates == nil {
		return gate.Spec{}
	}
	return o.Gates(image, file)
}

func (o Options) scope(r scan.Ref) string {
	if o.Scope == nil {
		return ""
	}
	return o.Scope(r.Image, r.File)
}

// scoped is the references of one repository that one policy decides.
type scoped struct {
	repo  name.Repository
	scope string
	form  chartForm // an OCI chart's versions and its OCIRepository's tags are read apart
}

// maxPinTries bounds the digest lookups spent turning `latest` into a version.
const maxPinTries = 20

// Build turns a scan result into a plan.
func Build(ctx context.Context, res scan.Result, opts Options) (*Plan, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = defaultConcurrency
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.now = opts.Now()
	opts.seen = newSightings(opts)
	p := &Plan{Updates: []Update{}, Notices: []Notice{}, Problems: []Problem{}}
	for _, sp := range res.Problems {
		if errors.Is(sp.Err, scan.ErrTemplate) {
			opts.Logger.Debug("skipped template", "file", sp.File, "line", sp.Line, "why", sp.Err.Error())
			continue
		}
		p.Problems = append(p.Problems, Problem{File: sp.File, Line: sp.Line, Message: sp.Err.Error()})
	}
	for _, s := range res.Skipped {
		if s.Kind.IsChart() {
			p.Notices = append(p.Notices, chartSkippedNotice(s))
		} else {
			p.Notices = append(p.Notices, skippedNotice(s))
		}
	}

	byRepo := map[scoped][]scan.Ref{}
	for _, r := range res.Refs {
		k := scoped{r.Repo, opts.scope(r), formImage}
		byRepo[k] = append(byRepo[k], r)
	}
	ociTags := map[scan.Location]bool{}
	for _, r := range res.Charts {
		if r.Kind == scan.KindOCIRepository {
			ociTags[scan.Location{File: r.File, Line: r.Line}] = true
			r = ChartRef(r)
		}
		form := formOf(r)
		switch form {
		case formHTTP:
			r.Repo = httpRepo(r.Chart)
		case formGit:
			r.Repo = gitRepoName(r.Git)
		}
		k := scoped{r.Repo, opts.scope(r), form}
		byRepo[k] = append(byRepo[k], r)
	}
	repos := make([]scoped, 0, len(byRepo))
	for repo := range byRepo {
		repos = append(repos, repo)
	}
	// In the order of the names printed (docker.io before ghcr.io).
	slices.SortFunc(repos, func(a, b scoped) int {
		return cmp.Or(strings.Compare(byRepo[a][0].Image, byRepo[b][0].Image), strings.Compare(a.scope, b.scope), cmp.Compare(a.form, b.form))
	})
	expect(opts, repos, byRepo)

	var (
		mu   sync.Mutex
		done int
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	steps := newLocksteps(opts)
	for _, repo := range repos {
		g.Go(func() error {
			refs := byRepo[repo]
			var dec decision
			if repo.form == formGit {
				dec = decideGit(gctx, refs, opts, steps.decide)
			} else {
				o, h := chartOptions(opts, refs)
				dec = steps.decide(gctx, refs, o)
				if refs[0].Chart != nil {
					dec = withChart(gctx, dec, refs, h)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			p.Updates = append(p.Updates, dec.updates...)
			p.Notices = append(p.Notices, dec.notices...)
			p.Problems = append(p.Problems, dec.problems...)
			done++
			if opts.Progress != nil {
				opts.Progress(done, len(repos))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.Updates = joinScopes(p.Updates)
	dec := steps.finish(ctx)
	p.Updates = append(p.Updates, dec.updates...)
	p.Notices = append(p.Notices, dec.notices...)
	p.Problems = append(p.Problems, dec.problems...)
	for i := range p.Updates {
		for _, u := range []*Update{&p.Updates[i], p.Updates[i].Minor} {
			if u == nil {
				continue
			}
			sortLocations(u)
			if opts.Group != nil {
				u.Group = opts.Group(u.Image).Name
			}
			chartUpdate(u)
			gitUpdate(u)
			WriteChartTags(u)
		}
	}
	ociTagNotices(p.Notices, ociTags)
	p.Notices = withoutDangling(p.Notices, p.Problems)
	if s := opts.seen; s != nil {
		p.Seen, p.Held = s.seen, s.held
		slices.SortFunc(p.Held, func(a, b Held) int {
			return cmp.Or(strings.Compare(a.Image, b.Image), strings.Compare(a.Tag, b.Tag), strings.Compare(a.Digest, b.Digest))
		})
	}
	p.Sort()
	return p, nil
}

// joinScopes makes one update of the updates that two scopes of an image
// decided alike (same image, old and new tag): they are one change to
// propose, and would otherwise compete for one branch.
func joinScopes(ups []Update) []Update {
	at := make(map[[3]string]int, len(ups))
	out := ups[:0]
	for _, u := range ups {
		k := [3]string{u.Image, u.From, u.To}
		if i, ok := at[k]; ok {
			out[i] = join(out[i], u)
			continue
		}
		at[k] = len(out)
		out = append(out, u)
	}
	return out
}

// skippedNotice accounts for an image value the scan saw but could not
// take as a reference: a variable, or text that is not a valid reference.
func skippedNotice(s scan.Skipped) Notice {
	// The value is not a reference, so it has no image or tag to report:
	// the detail quotes it (scan cut it short).
	n := Notice{File: s.File, Line: s.Line, Reason: ReasonVariable, Detail: strconv.Quote(s.Value)}
	switch s.Reason {
	case scan.SkipInvalid:
		n.Reason = ReasonInvalid
	case scan.SkipRenamed:
		n.Reason = ReasonRenamed
	case scan.SkipNoTag:
		// A valid name without a tag: the notice names the image, as
		// for an untagged `image:` value.
		return Notice{File: s.File, Line: s.Line, Image: s.Image, Reason: ReasonNoTag, Detail: s.Detail}
	case scan.SkipFolded:
		// A valid reference that cannot be written: named as it is.
		tag, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(s.Value, s.Image), ":"), "@")
		return Notice{File: s.File, Line: s.Line, Image: s.Image, Tag: tag, Reason: ReasonFolded, Detail: s.Detail}
	case scan.SkipWatched:
		// Not a reference to pull, but it names an image: the notice
		// says which, and what is written there (a constraint, an alias).
		return Notice{File: s.File, Line: s.Line, Image: s.Image, Reason: ReasonWatched, Detail: strconv.Quote(s.Value) + ": " + s.Detail}
	}
	if s.Detail != "" {
		n.Detail += ": " + s.Detail
	}
	return n
}

// defaultConcurrency is high because an image decided is mostly waiting
// on its registry: with the images limited to the requests in flight, the
// listing of one repository waits on the digests of another and a run
// takes a round trip per image instead of per request in flight.
const defaultConcurrency = 1024

// expect tells a registry client that can use it which repositories are
// about to be looked up (all but the skipped), so that it can ask one
// bearer token for many of them.
func expect(opts Options, repos []scoped, byRepo map[scoped][]scan.Ref) {
	expectCharts(opts, repos, byRepo)
	e, ok := opts.Registry.(expecter)
	if !ok {
		return
	}
	looked := make([]name.Repository, 0, len(repos))
	seen := map[name.Repository]bool{}
	for _, k := range repos {
		r := byRepo[k][0]
		if k.form == formHTTP || k.form == formGit {
			continue // listed from its repository's index or advertisement, not a registry
		}
		if pol, err := opts.Policy(r.Image, r.File); err == nil && !pol.Skip() && !seen[k.repo] {
			seen[k.repo] = true
			looked = append(looked, k.repo)
		}
	}
	e.Expect(looked...)
}

// expecter is a registry client that can use the list of the
// repositories to come (internal/registry's Client).
type expecter interface {
	Expect(repos ...name.Repository)
}

// sortLocations orders an update's changes by file and position, whichever
// decision (an untagged reference, one tagged latest) contributed them,
// and derives its Locations from them: the deciding steps set only Changes.
func sortLocations(u *Update) {
	slices.SortStableFunc(u.Changes, func(a, b Change) int {
		return cmp.Or(strings.Compare(a.Ref.File, b.Ref.File), cmp.Compare(a.Ref.Line, b.Ref.Line), cmp.Compare(a.Ref.Col, b.Ref.Col))
	})
	u.Locations = u.Locations[:0]
	for _, c := range u.Changes {
		u.Locations = append(u.Locations, c.Ref.Location)
	}
}

// withoutDangling drops the notices that a dangling problem contradicts: a
// tag gone from the registry is not "up to date", nor a vanished digest
// "kept". Notices that say more (held by a gate, not matching the pattern)
// stay beside the problem.
func withoutDangling(notes []Notice, probs []Problem) []Notice {
	// By image too: a line may hold several references (a flow list).
	type at struct {
		loc   scan.Location
		image string
	}
	gone := map[at]bool{}
	for _, p := range probs {
		if p.Kind == KindDangling {
			gone[at{scan.Location{File: p.File, Line: p.Line}, p.Image}] = true
		}
	}
	if len(gone) == 0 {
		return notes
	}
	out := notes[:0]
	for _, n := range notes {
		contradicted := n.Reason == ReasonUpToDate || n.Reason == ReasonDigestOnly
		if !contradicted || !gone[at{scan.Location{File: n.File, Line: n.Line}, n.Image}] {
			out = append(out, n)
		}
	}
	return out
}
