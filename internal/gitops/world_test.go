package gitops_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// token is GITHUB_TOKEN for both the git remote and the API. It is
// distinctive so that a leak anywhere is found by a plain substring search.
const token = "ghs_SCENARIO7oken5ecretDoNotPrint42"

const (
	owner = "acme"
	name  = "platform-gitops"
	main_ = "main"
)

// The configured commit author: not the default, so that the test shows the
// configuration is what is used.
var botAuthor = config.Author{Name: "acme-imagebot", Email: "imagebot@acme.example"}

// human is a person who pushes to the repository.
var human = object.Signature{Name: "Jane Doe", Email: "jane@acme.example"}

var gitAuth = &githttp.BasicAuth{Username: "x-access-token", Password: token}

// stream is what the held-out repository in testdata/manifests needs: one
// pull request per image stream. The branch names are written out here, not
// computed with the package's own function.
type stream struct {
	Branch, Image, From, To string
	Files                   []string // files holding the reference, sorted
	Locations               int
}

var streams = []stream{
	{"imagebot/docker.io-bitnami-kubectl", "docker.io/bitnami/kubectl", "1.29.3", "1.30.1", []string{"apps/jobs/cronjob.yaml"}, 1},
	{"imagebot/docker.io-library-busybox", "docker.io/library/busybox", "1.36.0", "1.37.0", []string{"apps/jobs/cronjob.yaml", "apps/storefront/deployment.yaml"}, 3},
	{"imagebot/docker.io-library-nginx", "docker.io/library/nginx", "1.25.3", "1.26.1", []string{"apps/storefront/deployment.yaml", "clusters/prod/kustomization.yaml"}, 2},
	{"imagebot/docker.io-library-nginx-alpine", "docker.io/library/nginx", "1.25.3-alpine", "1.26.1-alpine", []string{"apps/storefront/deployment.yaml", "local/compose.yaml"}, 2},
	{"imagebot/docker.io-library-node", "docker.io/library/node", "20.11.1", "22.1.0", []string{"ci/jobs.yaml", "local/compose.yaml"}, 2},
	{"imagebot/docker.io-library-postgres", "docker.io/library/postgres", "15.4", "16.2", []string{"charts/orders-db/values.yaml"}, 1},
	{"imagebot/docker.io-library-redis", "docker.io/library/redis", "7.2.4", "7.4.1", []string{"charts/session-cache/values.yaml"}, 1},
	{"imagebot/docker.io-library-redis-alpine", "docker.io/library/redis", "7.2.4-alpine", "7.4.1-alpine", []string{"local/compose.yaml"}, 1},
	{"imagebot/ghcr.io-acme-api", "ghcr.io/acme/api", "v1.7.0", "v2.0.0", []string{"apps/checkout/deployment.yaml", "clusters/prod/kustomization.yaml"}, 2},
	{"imagebot/ghcr.io-acme-builder-build", "ghcr.io/acme/builder", "build-98", "build-100", []string{"ci/jobs.yaml"}, 1},
	{"imagebot/ghcr.io-acme-frozen", "ghcr.io/acme/frozen", "3.1.0", "3.2.0", []string{"legacy/acme-tools.yaml"}, 1},
	{"imagebot/ghcr.io-acme-ignored", "ghcr.io/acme/ignored", "1.0.0", "1.1.0", []string{"legacy/acme-tools.yaml"}, 1},
	{"imagebot/ghcr.io-acme-minor-only", "ghcr.io/acme/minor-only", "1.2.0", "2.0.0", []string{"legacy/acme-tools.yaml"}, 1},
	{"imagebot/ghcr.io-acme-worker-build", "ghcr.io/acme/worker", "build-9", "build-11", []string{"apps/checkout/deployment.yaml"}, 1},
	{"imagebot/quay.io-prometheus-node-exporter", "quay.io/prometheus/node-exporter", "v1.7.0", "v1.8.2", []string{"platform/monitoring/node-exporter.yaml"}, 1},
	{"imagebot/registry.suse.com-bci-bci-base", "registry.suse.com/bci/bci-base", "15.5.36.5.14", "15.6.47.11.2", []string{"platform/base/suse.yaml"}, 1},
	{"imagebot/registry.suse.com-suse-sles15-rev-b", "registry.suse.com/suse/sles15", "2.6.2-rev1-b5.1", "2.6.3-rev1-b1.2", []string{"platform/base/suse.yaml"}, 1},
}

func streamOf(t *testing.T, branch string) stream {
	t.Helper()
	for _, s := range streams {
		if s.Branch == branch {
			return s
		}
	}
	t.Fatalf("no stream %s", branch)
	return stream{}
}

func allBranches() []string {
	var bs []string
	for _, s := range streams {
		bs = append(bs, s.Branch)
	}
	return bs
}

// world is one repository with everything around it: the seeded
// registry, a smart-HTTP git remote that requires the token, the host's
// fake API in front of it (hosts_test.go), and a clone as
// actions/checkout leaves it.
type world struct {
	t       *testing.T
	ctx     context.Context
	reg     *fixtures.Registry // nil with withRepo
	mirrors map[string]string
	gs      *gittest.Server
	host    host               // the git host's fake, whichever it is
	gh      *githubtest.Server // GitHub's, when host is; for GitHub-only tests
	files   map[string][]byte  // the repository as first committed
	clone   string
	cfg     *config.Config
	logs    *syncBuffer     // every slog line of every run
	out     *syncBuffer     // Options.Out of every run
	plan    *plan.Plan      // the plan of the last run
	clock   *fakeClock      // the time of runs and of the fake GitHub
	repo    *git.Repository // the remote's, opened once (bare_test.go)
}

type worldOption func(*worldConfig)

type worldConfig struct {
	host      hostMaker // the zero value is hosts[0]
	perPage   int       // the host's page size; 0 is its own
	issuesOff bool      // the repository has issues turned off
	ghOpts    []githubtest.Option
	files     map[string][]byte // nil: testdata/manifests against the seeded registry
	mirrors   map[string]string
	seeded    bool // files against the seeded registry
	backend   bool // the remote is git http-backend, not in process
}

// withRepo makes the repository files, looked up through mirrors, instead
// of testdata/manifests against the seeded registry.
func withRepo(files map[string][]byte, mirrors map[string]string) worldOption {
	return func(c *worldConfig) { c.files, c.mirrors = files, mirrors }
}

// withFiles makes the repository files, looked up in the seeded registry.
func withFiles(files map[string][]byte) worldOption {
	return func(c *worldConfig) { c.files, c.seeded = files, true }
}

// withHTTPBackend serves the remote with git's own http-backend: the
// end-to-end scenarios that hold the in-process remote to what git does
// (races on refs above all) run on both.
func withHTTPBackend() worldOption {
	return func(c *worldConfig) { c.backend = true }
}

// withGitHub configures GitHub's fake, for the tests of what only GitHub
// does; on another host it does nothing.
func withGitHub(o ...githubtest.Option) worldOption {
	return func(c *worldConfig) { c.ghOpts = append(c.ghOpts, o...) }
}

// syncBuffer is a bytes.Buffer safe for slog's concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func newWorld(t *testing.T, opts ...worldOption) *world {
	t.Helper()
	var wc worldConfig
	for _, o := range opts {
		o(&wc)
	}
	ctx := context.Background()
	w := &world{t: t, ctx: ctx, logs: &syncBuffer{}, out: &syncBuffer{}, clock: newFakeClock()}

	w.files, w.mirrors = wc.files, wc.mirrors
	if w.files == nil || wc.seeded {
		reg, err := fixtures.Serve(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(reg.Close)
		w.reg, w.mirrors = reg, reg.Mirrors()
		if w.files == nil {
			w.files = readTree(t, "testdata/manifests")
		}
	}

	newRemote := gittest.New
	if wc.backend {
		newRemote = gittest.NewHTTPBackend
	}
	gs, err := newRemote(gittest.TempDir(t), token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	w.gs = gs
	if _, err := gs.CreateRepo(owner, name, w.files, main_); err != nil {
		t.Fatal(err)
	}

	if wc.host.start == nil {
		wc.host = hosts[0]
	}
	w.host = wc.host.start(t, w, &wc)

	// actions/checkout: an https-style origin without credentials; the
	// token is only handed to the transport. Runs only read its origin:
	// it is never pulled, and goes stale as PRs merge, as a checkout that
	// is not refreshed would. Nothing reads its work tree, so none is
	// written (NoCheckout): writing it was a large part of a world whose
	// repository has hundreds of files.
	w.clone = filepath.Join(gittest.TempDir(t), "checkout")
	_, err = git.PlainCloneContext(ctx, w.clone, false, &git.CloneOptions{URL: gs.URL(owner + "/" + name), Auth: gitAuth, NoCheckout: true})
	if err != nil {
		t.Fatal(err)
	}

	w.cfg = config.Default()
	w.cfg.Git.Author = botAuthor

	t.Cleanup(w.assertNoToken)
	return w
}

// readTree reads every file below dir into a map of slash paths.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// policies compiles policies as cmd/bot's engine does.
func policies(cfg *config.Config) func(string, string) (*policy.Policy, error) {
	return func(image, file string) (*policy.Policy, error) {
		r := cfg.For(image, file)
		return policy.New(policy.Spec{
			Skip: r.Skip, Allow: r.Allow, Ignore: r.Ignore, Pattern: r.Pattern,
			Versioning: r.Versioning, Range: r.Range, Pin: r.Pin,
		})
	}
}

// planDir plans the files of dir; see planFS.
func (w *world) planDir(t *testing.T, dir string) (*plan.Plan, *registry.Client) {
	t.Helper()
	return w.planFS(t, os.DirFS(dir))
}

// planFS scans fsys and decides every reference against the registry as
// it is now, with a fresh client (no cache from an earlier run).
func (w *world) planFS(t *testing.T, fsys fs.FS) (*plan.Plan, *registry.Client) {
	t.Helper()
	reg := registry.NewClient(registry.WithMirrors(w.mirrors))
	res, err := scan.FS(w.ctx, fsys, w.cfg.Included)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(w.ctx, res, plan.Options{Registry: reg, Policy: policies(w.cfg), Logger: slog.New(slog.NewTextHandler(w.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range p.Problems {
		t.Errorf("plan problem: %s:%d: %s", pr.File, pr.Line, pr.Message)
	}
	return p, reg
}

// options are what cmd/bot's run builds from the environment.
func (w *world) options(t *testing.T) gitops.Options {
	t.Helper()
	url, err := gitops.OriginURL(w.clone)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := gitops.RepositoryFromURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if repo != owner+"/"+name {
		t.Fatalf("repository from %s = %s", url, repo)
	}
	return gitops.Options{
		Forge:      w.host.kind(),
		URL:        url,
		Repository: repo,
		APIURL:     w.host.apiURL(),
		Token:      token,
		User:       bbUser, // Bitbucket Cloud's account; the other hosts take none
		Logger:     slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Clock:      w.clock,
	}
}

// runOptions are what cmd/bot's run builds from the config.
func (w *world) runOptions(reg *registry.Client) gitops.RunOptions {
	cfg := w.cfg
	return gitops.RunOptions{
		BranchPrefix: cfg.Git.BranchPrefix,
		Author:       object.Signature{Name: cfg.Git.Author.Name, Email: cfg.Git.Author.Email},
		Draft:        cfg.PullRequests.Draft,
		Out:          w.out,
		Message: func(u plan.Update) (string, error) {
			return cfg.Git.Message(config.MessageData{Image: u.Image, From: u.From, To: u.To, Type: u.Type, Digest: u.Digest})
		},
		Meta: func(u plan.Update) gitops.Meta {
			var files []string
			for _, l := range u.Locations {
				files = append(files, l.File)
			}
			pr := cfg.ForUpdate(u.Image, files, u.Type)
			m := gitops.Meta{Labels: pr.Labels, Reviewers: pr.Reviewers}
			if pr.Automerge {
				m.Automerge = []string{u.Type}
			}
			return m
		},
		Details: reg.Info,
	}
}

// open starts a run as cmd/bot's does: fetch the default branch's tip,
// then plan from its tree. The clone is never read: it may be stale.
func (w *world) open(t *testing.T) (*gitops.Session, *plan.Plan, *registry.Client) {
	t.Helper()
	s, err := gitops.Open(w.ctx, w.options(t))
	if err != nil {
		if strings.Contains(err.Error(), token) {
			t.Errorf("Open error holds the token: %v", err)
		}
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	p, reg := w.planFS(t, s.FS())
	return s, p, reg
}

// run is one scheduled run: open, plan from the tip, Run.
func (w *world) run(t *testing.T, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	s, p, reg := w.open(t)
	return w.finish(t, s, p, reg, edit...)
}

// finish is the second half of run: Session.Run and its checks.
func (w *world) finish(t *testing.T, s *gitops.Session, p *plan.Plan, reg *registry.Client, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	w.plan = p
	o := w.runOptions(reg)
	for _, e := range edit {
		e(&o)
	}
	res, err := s.Run(w.ctx, p, o)
	if err != nil {
		if strings.Contains(err.Error(), token) {
			t.Errorf("Run error holds the token: %v", err)
		}
		t.Fatalf("Run: %v", err)
	}
	for _, e := range res.Failed {
		if strings.Contains(e.Error(), token) {
			t.Errorf("failure holds the token: %v", e)
		}
	}
	for _, pr := range res.Problems {
		t.Errorf("run problem: %s:%d: %s", pr.File, pr.Line, pr.Message)
	}
	return res
}

// runClean is a run that must not fail anything.
func (w *world) runClean(t *testing.T, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	res := w.run(t, edit...)
	for _, e := range res.Failed {
		t.Errorf("failed: %v", e)
	}
	return res
}

// counters are the remote's and the API's write counters.
type counters struct{ writes, pushes int }

func (w *world) counters() counters { return counters{w.host.writes(), w.gs.Pushes()} }

// prs returns the pull requests by head branch; for a branch with more than
// one, the newest wins.
func (w *world) prs() map[string]hostPR {
	m := map[string]hostPR{}
	for _, pr := range w.host.changes() {
		m[pr.Head] = pr
	}
	return m
}

func (w *world) openPRs() map[string]hostPR {
	m := map[string]hostPR{}
	for _, pr := range w.host.changes() {
		if pr.State == "open" {
			if old, dup := m[pr.Head]; dup {
				w.t.Errorf("two open PRs for %s: #%d and #%d", pr.Head, old.Number, pr.Number)
			}
			m[pr.Head] = pr
		}
	}
	return m
}
