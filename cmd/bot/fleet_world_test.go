package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// fleetToken stands in for GITHUB_TOKEN against the fakes.
const fleetToken = "ghs_FLEET7oken5ecret"

// fleet is many repositories served by one `serve --clone`: each a git
// repository on a smart-HTTP remote with its GitHub twin in the fake, all
// referencing images of one registry. Every repository holds files
// Deployments of one or two containers, drawn from a pool of images on
// their newest tag, but for one reference a tag behind: each repository
// gets one update, and a second run finds nothing new.
type fleet struct {
	reg    *registrytest.Server
	gs     *gittest.Server
	gh     *githubtest.Server
	ghURL  string // the fake GitHub's API, behind the fleet's latency
	gitURL string // the git server, behind the fleet's latency: GITHUB_SERVER_URL
	urls   []string
	images int
	work   string // serve's --workdir: the clones outlive a run, as in a Deployment
}

// delayed serves h after a latency, as a server across a network does.
func delayed(tb testing.TB, h http.Handler, latency time.Duration) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		h.ServeHTTP(w, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

const fleetTags = 4 // 1.0.0 ... 1.3.0

func fleetImage(i int) string { return fmt.Sprintf("acme/img%03d", i) }

// newFleet makes the fleet; git and GitHub answer after latency, as the
// registry does with registrytest.WithLatency among opts.
func newFleet(tb testing.TB, repos, files, images int, latency time.Duration, opts ...registrytest.Option) *fleet {
	tb.Helper()
	f := &fleet{reg: registrytest.NewServer(tb, opts...), images: images, work: tb.TempDir()}
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range images {
		for j := range fleetTags {
			f.reg.Push(tb, fleetImage(i), fmt.Sprintf("1.%d.0", j), registrytest.Image(tb, fmt.Sprintf("%d.%d", i, j), created.AddDate(0, 0, j), nil))
		}
	}
	var err error
	if f.gs, err = gittest.New(tb.TempDir(), fleetToken); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.gs.Close)
	f.gh = githubtest.New(githubtest.WithToken(fleetToken))
	tb.Cleanup(f.gh.Close)
	f.ghURL = delayed(tb, f.gh, latency)
	f.gitURL = delayed(tb, f.gs, latency)
	gitURL := f.gitURL

	rng := rand.New(rand.NewPCG(200, 50))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	f.urls = make([]string, repos)
	for r := range repos {
		content := fleetRepo(rng, files, images)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			name := fmt.Sprintf("svc%03d", r)
			if _, err := f.gs.CreateRepo("acme", name, content, "main"); err != nil {
				tb.Error(err)
				return
			}
			u := gitURL + "/acme/" + name + ".git" // as f.gs.URL, behind the latency
			mu.Lock()
			defer mu.Unlock()
			f.gh.AddRepo("acme", name, "main", githubtest.BareRepos(f.gs.Dir), githubtest.WithCloneURL(u))
			f.urls[r] = u
		})
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	return f
}

// fleetRepo is one repository's files: newest tags but for the first
// reference, which is a tag behind.
func fleetRepo(rng *rand.Rand, files, images int) map[string][]byte {
	out := map[string][]byte{}
	for n := range files {
		var sb strings.Builder
		fmt.Fprintf(&sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%d\nspec:\n  template:\n    spec:\n      containers:\n", n)
		for c := range 1 + rng.IntN(2) {
			tag := fleetTags - 1
			if n == 0 && c == 0 {
				tag--
			}
			fmt.Fprintf(&sb, "        - name: c%d\n          image: ghcr.io/%s:1.%d.0\n", c, fleetImage(rng.IntN(images)), tag)
		}
		out[fmt.Sprintf("apps/app%02d.yaml", n)] = []byte(sb.String())
	}
	// Repositories that run imagebot already: no onboarding pull request
	// (which a repository without a config would get instead of its
	// update), and no dashboard, so that the figures stay those of the
	// update pull requests and compare with BENCHMARKS.md's earlier ones.
	out[".imagebot.yaml"] = []byte("onboarding: false\ndashboard: false\n")
	return out
}

// serve runs `imagebot serve --once` over every repository of the fleet,
// with args added, and returns its status and what it wrote to stderr.
// The clones stay in the fleet's work directory between runs, as in a
// long-running serve: the first run clones, later ones fetch.
func (f *fleet) serve(tb testing.TB, args ...string) (int, string) {
	tb.Helper()
	for k, v := range map[string]string{
		"GITHUB_TOKEN": fleetToken, "GITHUB_API_URL": f.ghURL, "GITHUB_SERVER_URL": f.gitURL, "GITHUB_REPOSITORY": "",
		"GITHUB_ACTIONS": "", "GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": "",
	} {
		tb.Setenv(k, v)
	}
	full := []string{"serve", "--once", "--workdir", f.work, "--mirror", "ghcr.io=" + f.reg.URL(), "--log-level", "warn"}
	for _, u := range f.urls {
		full = append(full, "--clone", u)
	}
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), append(full, args...), &stdout, &stderr)
	return code, stderr.String()
}

// listings counts the tags listings the registry received.
func (f *fleet) listings() int { return f.reg.Count(http.MethodGet, "/tags/list") }

// manifestGETs counts the manifests the registry served.
func (f *fleet) manifestGETs() int { return f.reg.Count(http.MethodGet, "/manifests/") }

// openPRs counts the pull requests open in the fake GitHub.
func (f *fleet) openPRs() int {
	n := 0
	for r := range f.urls {
		for _, pr := range f.gh.PRs("acme", fmt.Sprintf("svc%03d", r)) {
			if pr.State == "open" {
				n++
			}
		}
	}
	return n
}
