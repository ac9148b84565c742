package gitea

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/testing/giteatest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

const teaToken = "gitea_SECRET_t0ken_never_printed"

// teaWorld is a fake Gitea in front of a git remote with one repository
// acme/app whose main has one commit, and branches made with branch.
type teaWorld struct {
	g  *giteatest.Server
	gs *gittest.Server
}

func newTeaWorld(t *testing.T, opts ...giteatest.RepoOption) *teaWorld {
	t.Helper()
	gs, err := gittest.New(gittest.TempDir(t), teaToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("acme", "app", map[string][]byte{"a.yaml": []byte("image: nginx:1.0.0\n")}, "main"); err != nil {
		t.Fatal(err)
	}
	g := giteatest.New(giteatest.WithToken(teaToken), giteatest.WithReadOnlyToken("reader", "read-only"))
	t.Cleanup(g.Close)
	g.AddRepo("acme", "app", "main", githubtest.BareRepos(gs.Dir), opts...)
	return &teaWorld{g: g, gs: gs}
}

func (w *teaWorld) forge(t *testing.T, token, repo string) *tea {
	t.Helper()
	f, err := newTea(forge.Config{APIURL: w.g.URL() + "/api/v1/", Repository: repo, Token: token,
		MaxWait: time.Millisecond, Clock: forge.RealClock{}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// branch pushes main as branch, which then has no commits of its own:
// Gitea opens pull requests for such branches all the same.
func (w *teaWorld) branch(t *testing.T, name string) {
	t.Helper()
	if _, err := gittestGit(w.gs.Dir("acme", "app"), "branch", name, "main"); err != nil {
		t.Fatal(err)
	}
}

func TestGiteaDuplicateChangeIsTheOpenOne(t *testing.T) {
	w := newTeaWorld(t)
	w.branch(t, "imagebot/nginx")
	f := w.forge(t, teaToken, "acme/app")
	ctx := context.Background()
	if _, err := f.Repository(ctx); err != nil {
		t.Fatal(err)
	}
	first, created, err := f.CreateChange(ctx, forge.NewChange{Title: "Update nginx to 1.1.0", Head: "imagebot/nginx", Base: "main", Draft: true})
	if err != nil || !created {
		t.Fatalf("first: created %v, %v", created, err)
	}
	if first.Title != "Update nginx to 1.1.0" {
		t.Errorf("draft read back as %q, want the title without its prefix", first.Title)
	}
	again, created, err := f.CreateChange(ctx, forge.NewChange{Title: "Update nginx to 1.1.0", Head: "imagebot/nginx", Base: "main"})
	if err != nil || created || again.Number != first.Number {
		t.Fatalf("second: #%v created %v, %v; want #%d returned", again, created, err, first.Number)
	}
	if err := f.EditChange(ctx, first.Number, forge.ChangeEdit{Title: ptr("Update nginx to 1.2.0")}); err != nil {
		t.Fatal(err)
	}
	if prs := w.g.PRs("acme", "app"); len(prs) != 1 || prs[0].Title != "WIP: Update nginx to 1.2.0" || !prs[0].Draft {
		t.Errorf("after the edit: %+v", prs)
	}
}

func ptr[T any](v T) *T { return &v }

func TestGiteaRefusals(t *testing.T) {
	w := newTeaWorld(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, token, repo string
		status            int
	}{
		{"bad token", "revoked", "acme/app", http.StatusUnauthorized},
		{"no repository", teaToken, "acme/nope", http.StatusNotFound},
	} {
		_, err := w.forge(t, tc.token, tc.repo).Repository(ctx)
		if teaStatus(err) != tc.status || strings.Contains(err.Error(), teaToken) {
			t.Errorf("%s: %v (status %d), want %d", tc.name, err, teaStatus(err), tc.status)
		}
	}
	w.branch(t, "imagebot/nginx")
	_, _, err := w.forge(t, "read-only", "acme/app").CreateChange(ctx, forge.NewChange{Title: "t", Head: "imagebot/nginx", Base: "main"})
	if teaStatus(err) != http.StatusForbidden || !strings.Contains(err.Error(), "write:repository") {
		t.Errorf("read-only token: %v", err)
	}
}

func TestGiteaRateLimit(t *testing.T) {
	w := newTeaWorld(t)
	for range 4 {
		w.g.FailNext(http.MethodGet, "/pulls", http.StatusTooManyRequests, http.Header{"Retry-After": {"3600"}})
	}
	_, err := w.forge(t, teaToken, "acme/app").Changes(context.Background(), forge.Query{State: "open"})
	var rl *forge.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("a 429 beyond the wait: %v (%T), want a *RateLimitError", err, err)
	}
}

func TestGiteaIssuesOff(t *testing.T) {
	w := newTeaWorld(t, giteatest.WithIssuesDisabled())
	f := w.forge(t, teaToken, "acme/app")
	ctx := context.Background()
	if _, err := f.Repository(ctx); err != nil {
		t.Fatal(err)
	}
	before := w.g.Requests()
	if _, err := f.FindIssue(ctx, giteatest.BotLogin, func(is []*forge.Issue) *forge.Issue { return nil }); !errors.Is(err, forge.ErrIssuesOff) {
		t.Errorf("FindIssue: %v, want ErrIssuesOff", err)
	}
	if _, err := f.CreateIssue(ctx, "Dashboard", "body", nil); !errors.Is(err, forge.ErrIssuesOff) {
		t.Errorf("CreateIssue: %v, want ErrIssuesOff", err)
	}
	if n := w.g.Requests() - before; n != 0 {
		t.Errorf("%d requests to learn issues are off, want 0", n)
	}
}

func TestGiteaLabelsByID(t *testing.T) {
	w := newTeaWorld(t)
	w.branch(t, "imagebot/nginx")
	f := w.forge(t, teaToken, "acme/app")
	ctx := context.Background()
	c, _, err := f.CreateChange(ctx, forge.NewChange{Title: "t", Head: "imagebot/nginx", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := f.Label(ctx, c.Number, []string{"dependencies", "Dependencies", "minor"}); err != nil {
			t.Fatal(err)
		}
	}
	if prs := w.g.PRs("acme", "app"); len(prs) != 1 || strings.Join(prs[0].Labels, ",") != "dependencies,minor" {
		t.Errorf("labels: %+v", prs[0].Labels)
	}
}

// gittestGit runs git in a bare repository of the remote.
func gittestGit(dir string, args ...string) ([]byte, error) {
	return exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
}
