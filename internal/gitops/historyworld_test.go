package gitops_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/prepull"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// A long history for rollouts: four environments promoted one from the
// next (dev -> qa -> staging -> production), each with its own apps, a
// pre-pull DaemonSet, and files no rollout asks about. Every commit bumps
// one app in one environment, an hour after the one before. No version
// has soaked for the two months asked (the root's versions neither: it
// is a month older than the first bump), so each promotion walks back to
// the root: the worst case, and what a run sees while versions are waiting.

var historyEnvs = []string{"dev", "qa", "staging", "production"}

const (
	historyApps   = 10
	historyDS     = "platform/prepull/daemonset.yaml"
	historyPulled = "ghcr.io/acme/app0"
)

// historyStart is when the first bump lands; the root commit is
// gittest's, older.
var historyStart = time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)

const historyConfig = `environments:
  - name: dev
    paths: ["envs/dev/**"]
  - name: qa
    paths: ["envs/qa/**"]
    promoteFrom: dev
    soak: 60d
  - name: staging
    paths: ["envs/staging/**"]
    promoteFrom: qa
    soak: 60d
  - name: production
    paths: ["envs/production/**"]
    promoteFrom: staging
    soak: 60d
prepull:
  match: ["ghcr.io/acme/app0"]
  manifest: platform/prepull/daemonset.yaml
  lead: 30m
`

// historyRepo is a repository on a real git remote behind the fake GitHub.
type historyRepo struct {
	opts    gitops.Options
	cfg     *config.Config
	now     time.Time // an hour after the last commit
	commits int       // on the default branch, the root included
}

// newHistoryRepo builds the repository with bumps commits after the root,
// and others files (in a directory each) that no rollout asks about: they
// are what makes diffing a commit cost.
// The commits are written with git fast-import straight into the remote's
// bare repository: a push per commit would cost the setup minutes.
func newHistoryRepo(tb testing.TB, bumps, others int) *historyRepo {
	tb.Helper()
	gs, err := gittest.New(gittest.TempDir(tb), token)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(gs.Close)
	files := map[string][]byte{}
	for _, env := range historyEnvs {
		for j := range historyApps {
			files[historyApp(env, j)] = []byte(deployment(fmt.Sprintf("ghcr.io/acme/app%d:1.0.0", j)))
		}
	}
	for j := range others {
		files[fmt.Sprintf("services/svc%03d/settings.txt", j)] = []byte("replicas: 1\n")
	}
	dir, err := gs.CreateRepo(owner, name, files, main_)
	if err != nil {
		tb.Fatal(err)
	}
	ds, err := prepull.Render(nil, prepull.Spec{Namespace: "kube-system", Helper: "ghcr.io/imagebot/imagebot:v0.1.0"},
		[]prepull.Entry{{Image: historyPulled, Tag: "2.0.0"}})
	if err != nil {
		tb.Fatal(err)
	}
	var stream bytes.Buffer
	for i := 1; i <= bumps; i++ {
		env, app := historyEnvs[i%len(historyEnvs)], (i/len(historyEnvs))%historyApps
		change := map[string][]byte{historyApp(env, app): []byte(deployment(fmt.Sprintf("ghcr.io/acme/app%d:1.0.%d", app, i)))}
		if others > 0 {
			// A commit also touches a file nobody asks about, as real
			// histories do.
			change[fmt.Sprintf("services/svc%03d/settings.txt", i%others)] = fmt.Appendf(nil, "replicas: %d\n", i)
		}
		if i == 3 {
			change[historyDS] = ds
		}
		writeFastImport(&stream, i, historyStart.Add(time.Duration(i)*time.Hour), change)
	}
	cmd := exec.Command("git", "--git-dir="+dir, "fast-import", "--quiet")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v: %s", err, out)
	}

	now := historyStart.Add(time.Duration(bumps+1) * time.Hour)
	gh := githubtest.New(githubtest.WithToken(token), githubtest.WithClock(func() time.Time { return now }))
	tb.Cleanup(gh.Close)
	gh.AddRepo(owner, name, main_, githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL(owner+"/"+name)))

	cfg, err := config.Parse(".imagebot.yaml", []byte(historyConfig))
	if err != nil {
		tb.Fatal(err)
	}
	return &historyRepo{
		opts: gitops.Options{URL: gs.URL(owner + "/" + name), Repository: owner + "/" + name, APIURL: gh.URL(), Token: token},
		cfg:  cfg, now: now, commits: bumps + 1,
	}
}

func historyApp(env string, j int) string { return fmt.Sprintf("envs/%s/app%d.yaml", env, j) }

// writeFastImport appends commit i, dated when, to a fast-import stream.
func writeFastImport(w *bytes.Buffer, i int, when time.Time, files map[string][]byte) {
	msg := fmt.Sprintf("bump %d", i)
	fmt.Fprintf(w, "commit refs/heads/%s\ncommitter %s <%s> %d +0000\ndata %d\n%s\n", main_, human.Name, human.Email, when.Unix(), len(msg), msg)
	if i == 1 {
		fmt.Fprintf(w, "from refs/heads/%s^0\n", main_)
	}
	for path, b := range files {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(b), b)
	}
}

// open is a run's start: the session over the remote's default branch.
func (h *historyRepo) open(tb testing.TB) *gitops.Session {
	tb.Helper()
	s, err := gitops.Open(context.Background(), h.opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// plan is the tip's references and the plan as plan.Build leaves it for
// rollouts: the promoted environments' references wait for their
// promotion, and the pre-pulled image has an update (its DaemonSet entry
// landed in the third commit).
func (h *historyRepo) plan(tb testing.TB, s *gitops.Session) (*plan.Plan, []scan.Ref) {
	tb.Helper()
	res, err := scan.FS(context.Background(), s.FS(), h.cfg.Included)
	if err != nil {
		tb.Fatal(err)
	}
	p := &plan.Plan{}
	for _, r := range res.Refs {
		if e := h.cfg.EnvironmentFor(r.File); e != nil && e.PromoteFrom != "" {
			p.Notices = append(p.Notices, plan.Notice{File: r.File, Line: r.Line, Image: r.Image, Tag: r.Tag, Reason: plan.ReasonPromoted})
			continue
		}
		if r.Image == historyPulled && p.Updates == nil {
			p.Updates = append(p.Updates, plan.Update{
				Image: r.Image, Repo: r.Repo, From: r.Tag, To: "2.0.0", Type: "major",
				Changes: []plan.Change{{Ref: r, Tag: "2.0.0"}}, Locations: []scan.Location{r.Location},
			})
		}
	}
	return p, res.Refs
}

// apply decides the rollouts as cmd/bot's run does.
func (h *historyRepo) apply(tb testing.TB, s *gitops.Session, p *plan.Plan, refs []scan.Ref) {
	tb.Helper()
	err := rollout.Apply(context.Background(), p, refs, rollout.Options{
		Config: h.cfg, History: s, Statuses: s, Tip: s.FS(), Now: h.now, Helper: "ghcr.io/imagebot/imagebot:v0.1.0",
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// checkDecided fails unless the plan shows that every walk went where it
// had to: each promoted environment's apps wait for the soak, and the
// pre-pull was dated from the commit that added it.
func (h *historyRepo) checkDecided(tb testing.TB, p *plan.Plan) {
	tb.Helper()
	waits := 0
	for _, n := range p.Notices {
		if n.Reason == plan.ReasonPromoted && strings.Contains(n.Detail, "it soaks until") {
			waits++
		}
	}
	if want := (len(historyEnvs) - 1) * historyApps; waits != want {
		tb.Errorf("%d references wait for a soak, want %d: %+v", waits, want, p.Notices)
	}
	if len(p.Updates) != 1 || !strings.Contains(strings.Join(p.Updates[0].Grounds, "\n"), "pre-pulled on the nodes since 2024-02-01 03:00 UTC") {
		tb.Errorf("want the pre-pulled rollout dated from the third commit: %+v", p.Updates)
	}
	if len(p.Problems) > 0 {
		tb.Errorf("problems %+v", p.Problems)
	}
}
