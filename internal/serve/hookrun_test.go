package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// hookWorld is a served repository on a fake GitHub that references
// ghcr.io/acme/api (CI builds, order: created) and nginx, with a real
// registry that has ghcr.io only: a run that planned nginx would fail.
type hookWorld struct {
	s    *Server
	gh   *githubtest.Server
	reg  *registrytest.Server
	next string   // digest of the newest build
	errs []string // the runs' errors
}

func newHookWorld(t *testing.T) *hookWorld {
	t.Helper()
	const gitToken, apiToken = "t0ken", "t0ken"
	reg := registrytest.NewServer(t)
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	reg.Push(t, "ghcr.io/acme/api", "main-a1a1a1a", registrytest.Image(t, "a1", base, nil))
	gs, err := gittest.New(t.TempDir(), gitToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gs.Close() })
	files := map[string][]byte{
		".imagebot.yaml": []byte("policies:\n  - match: ghcr.io/acme/api\n    pattern: '^main-[0-9a-f]{7}$'\n    order: created\n"),
		"app.yaml": []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: app\nspec:\n  containers:\n" +
			"    - name: api\n      image: ghcr.io/acme/api:main-a1a1a1a\n    - name: web\n      image: nginx:1.25.3\n"),
	}
	if _, err := gs.CreateRepo("acme", "gitops", files, "main"); err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(githubtest.WithToken(apiToken))
	t.Cleanup(gh.Close)
	gh.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/gitops")))
	hw := &hookWorld{}
	server := strings.TrimSuffix(gs.URL("o/r"), "/o/r.git")
	s, err := New(Options{
		Clones: []string{gs.URL("acme/gitops")}, Workdir: t.TempDir(), Token: gitToken,
		Schedule: mustSchedule(t, "@every 24h"),
		Hooks:    HookOptions{Secret: []byte(hookSecret)},
		Logger:   slog.New(slog.NewTextHandler(t.Output(), nil)),
		Report: func(_ io.Writer, rep *job.RunReport, err error) {
			if err != nil || rep.Summary.Failed > 0 {
				hw.errs = append(hw.errs, fmt.Sprint(err, rep.Summary))
			}
		},
		Job: job.Options{
			GitHub: job.GitHub{Token: apiToken, APIURL: gh.URL(), ServerURL: server},
			Registry: job.Registry{Mirrors: map[string]string{"ghcr.io": reg.URL() + "/ghcr.io"},
				Cache: &job.Cache{Dir: t.TempDir(), TTL: time.Hour, MaxBytes: 64 << 20}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	hw.s, hw.gh, hw.reg = s, gh, reg
	// A notification of the current build: nothing to do, but the
	// listing is now in --cache, fresh for an hour.
	hw.deliver(t, hookSecret, `{"image": "ghcr.io/acme/api", "tag": "main-a1a1a1a"}`)
	if got := counter(t, s.metrics.hookRequests.WithLabelValues("generic", "done")); got != 1 {
		t.Fatalf("done = %v after the current build's notification, want 1", got)
	}
	// CI pushes a newer build, within the cache's TTL.
	hw.next = reg.Push(t, "ghcr.io/acme/api", "main-0f0f0f0", registrytest.Image(t, "0f", base.Add(24*time.Hour), nil))
	return hw
}

// deliver posts a generic notification, signed with secret, and handles
// what it queued as the worker does.
func (w *hookWorld) deliver(t *testing.T, secret, body string) int {
	t.Helper()
	h := map[string]string{"X-Imagebot-Signature-256": signWith(secret, body)}
	code := post(w.s, "/hooks/generic", h, body).Code
	for _, q := range w.s.queue.take() {
		w.s.handlePush(context.Background(), q)
	}
	return code
}

// TestHookOpensPR: a signed notification opens the pull request for the
// pushed build at once, with no scheduled run, planning that image alone,
// even while --cache holds a listing from before the push as fresh;
// a forged one, or one whose digest the registry does not serve, opens
// nothing.
func TestHookOpensPR(t *testing.T) {
	w := newHookWorld(t)
	body := `{"image": "ghcr.io/acme/api", "tag": "main-0f0f0f0", "digest": "` + w.next + `"}`
	if code := w.deliver(t, "a guess", body); code != 401 {
		t.Errorf("forged: status %d, want 401", code)
	}
	wrong := strings.Replace(body, w.next[len(w.next)-6:], "000000", 1)
	if code := w.deliver(t, hookSecret, wrong); code != 202 {
		t.Errorf("wrong digest: status %d, want 202", code)
	}
	if prs := w.gh.PRs("acme", "gitops"); len(prs) != 0 {
		t.Fatalf("PRs after a forged and a wrong notification: %+v", prs)
	}
	if got := counter(t, w.s.metrics.hookRequests.WithLabelValues("generic", "not_served")); got != 1 {
		t.Errorf("not_served = %v, want 1", got)
	}

	if code := w.deliver(t, hookSecret, body); code != 202 {
		t.Fatalf("signed: status %d, want 202", code)
	}
	prs := w.gh.PRs("acme", "gitops")
	if len(prs) != 1 || prs[0].Title != "Update ghcr.io/acme/api to main-0f0f0f0" {
		t.Fatalf("PRs %+v, want the one for main-0f0f0f0", prs)
	}
	if strings.Contains(prs[0].Body, body) {
		t.Error("the PR body quotes the notification")
	}
	// Only the notified image was planned (nginx, which this registry
	// cannot answer for, would have failed the run), and the partial run
	// left the dashboard alone.
	if len(w.errs) != 0 {
		t.Errorf("runs failed: %v", w.errs)
	}
	if is := w.gh.Issues("acme", "gitops"); len(is) != 0 {
		t.Errorf("a hook's run wrote the dashboard: %+v", is)
	}
	if got := counter(t, w.s.metrics.hookRequests.WithLabelValues("generic", "done")); got != 2 {
		t.Errorf("done = %v, want 2", got)
	}
	if n := histogramCount(t, w.s); n != 1 {
		t.Errorf("hook_to_pr_seconds count = %d, want 1", n)
	}
	// An image no served repository references: nothing.
	other := `{"image": "ghcr.io/acme/unknown", "tag": "main-0f0f0f0"}`
	w.deliver(t, hookSecret, other)
	if got := counter(t, w.s.metrics.hookRequests.WithLabelValues("generic", "unknown_image")); got != 1 {
		t.Errorf("unknown_image = %v, want 1", got)
	}
	if prs := w.gh.PRs("acme", "gitops"); len(prs) != 1 {
		t.Errorf("%d PRs, want 1", len(prs))
	}
}
