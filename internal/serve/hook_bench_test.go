package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// BenchmarkHookToPR times a push notification to the pull requests it
// opens: a serve of 200 repositories (already cloned, as a long-running
// serve's are), 10 of which reference ghcr.io/acme/api, with the
// registry, the git remote and GitHub answering every request after
// 20 ms. Each iteration pushes a new build and delivers a signed generic
// notification; it reports the p50 and p99 over iterations of the time to
// the first and to the tenth pull request opened or updated, and the
// registry requests one notification costs.
//
//	make bench   # or: go test ./internal/serve -run '^$' -bench HookToPR -benchtime 10x
func BenchmarkHookToPR(b *testing.B) {
	const repos, referencing, latency = 200, 10, 20 * time.Millisecond
	w := newHookFleet(b, repos, referencing)
	w.setLatency(latency)
	var first, tenth []time.Duration
	var requests, manifests, blobs, listings, writes int
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		tag := fmt.Sprintf("main-%07x", 0xb000000+i)
		digest := w.reg.Push(b, "ghcr.io/acme/api", tag, registrytest.Image(b, tag, time.Date(2026, 3, 1, 0, 0, i, 0, time.UTC), nil))
		w.reg.Reset()
		w.mu.Lock()
		w.done = nil
		w.mu.Unlock()
		writes0 := w.gh.Writes()
		body := `{"image": "ghcr.io/acme/api", "tag": "` + tag + `", "digest": "` + digest + `"}`
		b.StartTimer()
		w.start = time.Now()
		if code := post(w.s, "/hooks/generic", map[string]string{"X-Imagebot-Signature-256": sign(body)}, body).Code; code != 202 {
			b.Fatalf("status %d", code)
		}
		for _, q := range w.s.queue.take() {
			w.s.handlePush(context.Background(), q)
		}
		b.StopTimer()
		w.mu.Lock()
		done := slices.Clone(w.done)
		w.mu.Unlock()
		if len(done) != referencing {
			b.Fatalf("%d repositories changed a pull request, want %d", len(done), referencing)
		}
		slices.Sort(done)
		first, tenth = append(first, done[0]), append(tenth, done[referencing-1])
		requests += len(w.reg.Requests())
		manifests += w.reg.Count(http.MethodGet, "/manifests/") + w.reg.Count(http.MethodHead, "/manifests/")
		listings += w.reg.Count(http.MethodGet, "/tags/list")
		blobs += w.reg.Count(http.MethodGet, "/blobs/")
		writes += w.gh.Writes() - writes0
		b.StartTimer()
	}
	n := float64(len(first))
	b.ReportMetric(quantile(first, 0.5).Seconds(), "first-p50-s")
	b.ReportMetric(quantile(first, 0.99).Seconds(), "first-p99-s")
	b.ReportMetric(quantile(tenth, 0.5).Seconds(), "tenth-p50-s")
	b.ReportMetric(quantile(tenth, 0.99).Seconds(), "tenth-p99-s")
	b.ReportMetric(float64(requests)/n, "registry-req/op")
	b.ReportMetric(float64(listings)/n, "listings/op")
	b.ReportMetric(float64(manifests)/n, "manifest-req/op")
	b.ReportMetric(float64(blobs)/n, "blob-req/op")
	b.ReportMetric(float64(writes)/n, "github-writes/op")
}

// quantile is the q-quantile of ds, nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// hookFleet is a serve of many repositories on a fake GitHub, git remote
// and registry, each behind a latency that can be turned up once the
// repositories are cloned.
type hookFleet struct {
	s       *Server
	gh      *githubtest.Server
	reg     *registrytest.Server
	latency atomic.Int64

	mu    sync.Mutex
	start time.Time
	done  []time.Duration // when each repository's PR was opened or updated
}

func (w *hookFleet) setLatency(d time.Duration) {
	w.latency.Store(int64(d))
	w.reg.SetLatency(d)
}

func (w *hookFleet) delayed(tb testing.TB, h http.Handler) string {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration(w.latency.Load()))
		h.ServeHTTP(rw, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

func newHookFleet(tb testing.TB, repos, referencing int) *hookFleet {
	tb.Helper()
	const token = "t0ken"
	w := &hookFleet{reg: registrytest.NewServer(tb)}
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	w.reg.Push(tb, "ghcr.io/acme/api", "main-a1a1a1a", registrytest.Image(tb, "a1", base, nil))
	w.reg.Push(tb, "ghcr.io/acme/web", "1.0.0", registrytest.Image(tb, "web", base, nil))
	gs, err := gittest.New(tb.TempDir(), token)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { gs.Close() })
	w.gh = githubtest.New(githubtest.WithToken(token))
	tb.Cleanup(w.gh.Close)
	ghURL, gitURL := w.delayed(tb, w.gh), w.delayed(tb, gs)
	var urls []string
	for r := range repos {
		img := "ghcr.io/acme/web:1.0.0"
		if r%(repos/referencing) == 0 {
			img = "ghcr.io/acme/api:main-a1a1a1a"
		}
		files := map[string][]byte{
			".imagebot.yaml": []byte("onboarding: false\npolicies:\n  - match: ghcr.io/acme/api\n    pattern: '^main-[0-9a-f]{7}$'\n    order: created\n"),
			"app.yaml":       []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: app\nspec:\n  containers:\n    - name: c\n      image: " + img + "\n"),
		}
		name := fmt.Sprintf("svc%03d", r)
		if _, err := gs.CreateRepo("acme", name, files, "main"); err != nil {
			tb.Fatal(err)
		}
		u := gitURL + "/acme/" + name + ".git"
		w.gh.AddRepo("acme", name, "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(u))
		urls = append(urls, u)
	}
	s, err := New(Options{
		Clones: urls, Workdir: tb.TempDir(), Token: token, Parallel: 8,
		Schedule: mustSchedule(tb, "@every 24h"),
		Hooks:    HookOptions{Secret: []byte(hookSecret)},
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Job: job.Options{
			GitHub: job.GitHub{Token: token, APIURL: ghURL, ServerURL: gitURL},
			// A serve keeps --cache on a volume: build times are read once.
			Registry: job.Registry{Mirrors: map[string]string{"ghcr.io": w.reg.URL() + "/ghcr.io"},
				Cache: &job.Cache{Dir: tb.TempDir(), TTL: time.Hour, MaxBytes: 64 << 20}},
		},
		Report: func(_ io.Writer, rep *job.RunReport, err error) {
			if err != nil {
				tb.Errorf("run: %v", err)
				return
			}
			if rep.Summary.Opened+rep.Summary.Updated > 0 {
				w.mu.Lock()
				w.done = append(w.done, time.Since(w.start))
				w.mu.Unlock()
			}
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	// A long-running serve has its clones: made here, without latency.
	for _, t := range s.targets {
		if err := s.sync(context.Background(), t); err != nil {
			tb.Fatal(err)
		}
	}
	w.s = s
	return w
}
