package gitops_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// What the rollout scenarios add to the world: a config with groups,
// environments and pre-pull, commits dated in the world's time, statuses
// and check runs posted as Flux and CI post them, and runs that decide
// rollouts as cmd/bot's run does.

// configure sets the world's config from .imagebot.yaml text.
func (w *world) configure(t *testing.T, yaml string) {
	t.Helper()
	cfg, err := config.Parse(".imagebot.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Git.Author = botAuthor
	w.cfg = cfg
}

// advance moves the world's clock (the runs' now, GitHub's time, merges).
func (w *world) advance(d time.Duration) {
	w.clock.Sleep(context.Background(), d)
}

// commitAt commits files (full contents; "" deletes) onto main as a person
// would, dated ago before the world's now, and returns the commit.
func (w *world) commitAt(t *testing.T, ago time.Duration, msg string, files map[string]string) string {
	t.Helper()
	dir := gittest.TempDir(t)
	r, err := git.PlainCloneContext(w.ctx, dir, false, &git.CloneOptions{
		URL: w.gs.URL(owner + "/" + name), Auth: gitAuth,
		ReferenceName: plumbing.NewBranchReferenceName(main_), SingleBranch: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for f, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if content == "" {
			if _, err := wt.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	who := human
	who.When = w.clock.Now().Add(-ago)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &who, Committer: &who})
	if err != nil {
		t.Fatal(err)
	}
	ref := "refs/heads/" + main_
	if err := r.PushContext(w.ctx, &git.PushOptions{Auth: gitAuth, RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec(ref + ":" + ref)}}); err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// client is go-github against the fake, as Flux's notification-controller
// or a CI job would use it.
func (w *world) client() *github.Client {
	c := github.NewClient(&http.Client{}).WithAuthToken(token)
	u, _ := c.BaseURL.Parse(w.gh.URL() + "/")
	c.BaseURL = u
	return c
}

// postStatus posts a commit status, as Flux's notification-controller does
// for the commit it applied.
func (w *world) postStatus(t *testing.T, sha, context, state string) {
	t.Helper()
	if err := w.host.postStatus(sha, context, state); err != nil {
		t.Fatal(err)
	}
}

// postCheck posts a completed CI check, as a CI job does.
func (w *world) postCheck(t *testing.T, sha, checkName, conclusion string) {
	t.Helper()
	if err := w.host.postCheck(sha, checkName, conclusion); err != nil {
		t.Fatal(err)
	}
}

// rolloutRun is one run as cmd/bot's: plan from the tip with groups and
// environments, decide rollouts from the session's history and statuses
// at the world's now, then Run.
func (w *world) rolloutRun(t *testing.T, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	s, p, reg := w.openRollouts(t)
	return w.finish(t, s, p, reg, edit...)
}

// openRollouts is the first half of rolloutRun.
func (w *world) openRollouts(t *testing.T) (*gitops.Session, *plan.Plan, *registry.Client) {
	t.Helper()
	s, err := gitops.Open(w.ctx, w.options(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	reg := registry.NewClient(registry.WithMirrors(w.mirrors))
	res, err := scan.FS(w.ctx, s.FS(), w.cfg.Included)
	if err != nil {
		t.Fatal(err)
	}
	cfg := w.cfg
	p, err := plan.Build(w.ctx, res, plan.Options{
		Registry: reg, Policy: policies(cfg),
		Group: func(img string) plan.Group {
			if g := cfg.GroupFor(img); g != nil {
				return plan.Group{Name: g.Name, Lockstep: g.Lockstep}
			}
			return plan.Group{}
		},
		Promoted: func(file string) (string, string) {
			if e := cfg.EnvironmentFor(file); e != nil {
				return e.Name, e.PromoteFrom
			}
			return "", ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = rollout.Apply(w.ctx, p, res.Refs, rollout.Options{
		Config: cfg, History: s, Statuses: s, Tip: s.FS(), Registry: reg, Policy: func(img string) (*policy.Policy, error) { return policies(cfg)(img, "") },
		Now: w.clock.Now(), Helper: "ghcr.io/imagebot/imagebot:v0.1.0",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range p.Problems {
		t.Errorf("plan problem: %s:%d: %s", pr.File, pr.Line, pr.Message)
	}
	return s, p, reg
}

// mainFile is a file on the remote's main.
func (w *world) mainFile(t *testing.T, path string) string {
	t.Helper()
	c := w.commit(t, main_)
	f, err := c.File(path)
	if err != nil {
		return ""
	}
	s, err := f.Contents()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mainTip is main's commit on the remote.
func (w *world) mainTip(t *testing.T) *object.Commit { return w.commit(t, main_) }

// noticesOf are the last plan's notices with reason, as "image:tag detail".
func (w *world) noticesOf(reason string) []string {
	var out []string
	for _, n := range w.plan.Notices {
		if n.Reason == reason {
			out = append(out, n.Image+":"+n.Tag+" "+n.Detail)
		}
	}
	return out
}

func deployment(images ...string) string {
	s := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n"
	for i, img := range images {
		s += "        - name: c" + string(rune('0'+i)) + "\n          image: " + img + "\n"
	}
	return s
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, s)
		}
	}
}
