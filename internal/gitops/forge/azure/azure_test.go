package azure_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
	"github.com/imagebot/imagebot/internal/testing/azuretest"
)

// clock is a test's time: Sleep moves it on, at once.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept += d
	return nil
}

func open(t *testing.T, s *azuretest.Server, token string, maxWait time.Duration) (forge.Forge, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	f, err := forge.Open(context.Background(), azure.Kind, forge.Config{APIURL: s.URL(), URL: s.URL() + "/_git/x",
		Repository: azuretest.Project + "/" + azuretest.Repo, Token: token, Clock: clk, MaxWait: maxWait})
	if err != nil {
		t.Fatal(err)
	}
	return f, clk
}

// TestLifecycle: open (a draft, tagged, reviewed, auto-completing), find
// it again by the bot's identity, a race's 409 returns the open one,
// abandon it (closed, not merged), and the listings page by $top/$skip.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	s := azuretest.New(azuretest.WithPerPage(100))
	defer s.Close()
	s.SetBranch("imagebot/app-1.2", strings.Repeat("b", 40))
	f, _ := open(t, s, azuretest.DefaultToken, time.Minute)

	repo, err := f.Repository(ctx)
	if err != nil || repo.DefaultBranch != "main" || !strings.HasSuffix(repo.URL, "/_git/deploy") {
		t.Fatalf("Repository: %+v, %v", repo, err)
	}
	me, err := f.WhoAmI(ctx)
	if err != nil || me.Login != azuretest.Bot.UniqueName {
		t.Fatalf("WhoAmI: %+v, %v", me, err)
	}
	// The marker ends a long body: the listing cuts it at 400, the
	// driver reads it whole.
	body := strings.Repeat("x", 900) + "\n<!-- imagebot:marker -->"
	c, created, err := f.CreateChange(ctx, forge.NewChange{Title: "Update app to 1.2", Body: body, Head: "imagebot/app-1.2", Base: "main", Draft: true})
	if err != nil || !created || c.Number != 1 || c.State != "open" || !strings.HasSuffix(c.URL, "/pullrequest/1") {
		t.Fatalf("CreateChange: %+v, %v, %v", c, created, err)
	}
	again, created, err := f.CreateChange(ctx, forge.NewChange{Title: "Update app to 1.2", Body: body, Head: "imagebot/app-1.2", Base: "main"})
	if err != nil || created || again.Number != 1 {
		t.Fatalf("CreateChange again (TF401179): %+v, %v, %v", again, created, err)
	}
	if err := f.Label(ctx, 1, []string{"imagebot", "major"}); err != nil {
		t.Fatal(err)
	}
	if err := f.RequestReviewers(ctx, 1, []string{azuretest.Human.UniqueName, azuretest.Project + "/Platform"}); err != nil {
		t.Fatal(err)
	}
	if err := f.RequestReviewers(ctx, 1, []string{"nobody@contoso.com"}); err == nil {
		t.Error("an unknown reviewer: no error")
	}
	if err := f.EnableAutoMerge(ctx, c); err != nil {
		t.Fatal(err)
	}
	before := s.Requests()
	open, err := f.Changes(ctx, forge.Query{State: "open", Prefix: "imagebot/", Author: me.Login})
	if err != nil || len(open) != 1 || open[0].Body != body || len(open[0].Labels) != 2 {
		t.Fatalf("Changes: %+v, %v", open, err)
	}
	// One listing, one read of the cut description.
	if n := s.Requests() - before; n != 2 {
		t.Errorf("listing the bot's open pull requests: %d requests, want 2", n)
	}
	// A body that ends with imagebot's marker is listed with its marker
	// first: no read per pull request, and the body reads back whole.
	s.SetBranch("imagebot/app-2", strings.Repeat("b", 40))
	marked := strings.Repeat("z", 900) + "\n\n<!-- imagebot:v2 {\"branch\":\"imagebot/app-2\"} -->\n"
	if _, _, err := f.CreateChange(ctx, forge.NewChange{Title: "Update app to 2", Body: marked, Head: "imagebot/app-2", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	before = s.Requests()
	listed, err := f.Changes(ctx, forge.Query{State: "open", Head: "imagebot/app-2", Author: me.Login})
	if err != nil || len(listed) != 1 || !strings.HasSuffix(listed[0].Body, "zzz\n<!-- imagebot:v2 {\"branch\":\"imagebot/app-2\"} -->\n") {
		t.Fatalf("Changes of a marked PR: %+v, %v", listed, err)
	}
	if n := s.Requests() - before; n != 1 {
		t.Errorf("listing a marked PR: %d requests, want 1", n)
	}
	if again, _, err := f.CreateChange(ctx, forge.NewChange{Title: "Update app to 2", Body: marked, Head: "imagebot/app-2", Base: "main"}); err != nil || again.Body[:100] != marked[:100] {
		t.Errorf("the open PR read back: %v", err)
	}
	pr := s.PRs()[0]
	if !pr.IsDraft || pr.AutoCompleteSetBy != azuretest.Bot.ID || len(pr.Reviewers) != 2 {
		t.Errorf("the pull request: %+v", pr)
	}
	if err := f.Comment(ctx, 1, "rebased <!-- mark -->"); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.Commented(ctx, 1, "<!-- mark -->", func(l string) bool { return l == me.Login }); !ok || err != nil {
		t.Errorf("Commented: %v, %v", ok, err)
	}
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Close: true}); err != nil {
		t.Fatal(err)
	}
	// The closed PRs of many waiting branches are one listing, not one
	// per branch (and a read of #1's cut description).
	waiting := []string{"imagebot/app-1.2", "imagebot/other"}
	for i := range 20 {
		waiting = append(waiting, "imagebot/waiting-"+strconv.Itoa(i))
	}
	before = s.Requests()
	closed, err := f.ClosedChanges(ctx, forge.Query{Base: "main", Author: me.Login}, waiting)
	if err != nil || len(closed) != 1 || len(closed["imagebot/app-1.2"]) != 1 || closed["imagebot/app-1.2"][0].Merged || closed["imagebot/app-1.2"][0].State != "closed" {
		t.Fatalf("ClosedChanges: %+v, %v", closed, err)
	}
	if n := s.Requests() - before; n != 2 {
		t.Errorf("the closed PRs of %d branches: %d requests, want 2", len(waiting), n)
	}
	// A closed PR of another branch is not read whole, however cut.
	before = s.Requests()
	if closed, err := f.ClosedChanges(ctx, forge.Query{Base: "main", Author: me.Login}, waiting[1:]); err != nil || len(closed) != 0 {
		t.Fatalf("ClosedChanges of other branches: %+v, %v", closed, err)
	}
	if n := s.Requests() - before; n != 1 {
		t.Errorf("the closed PRs of other branches: %d requests, want 1", n)
	}
	if err := f.DeleteBranch(ctx, "imagebot/app-1.2"); err != nil || s.Branch("imagebot/app-1.2") != "" {
		t.Fatalf("DeleteBranch: %v", err)
	}
	if err := f.DeleteBranch(ctx, "imagebot/app-1.2"); !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("DeleteBranch of a gone branch: %v", err)
	}
	if _, err := f.FindIssue(ctx, me.Login, nil); !errors.Is(err, forge.ErrNoIssueTracker) {
		t.Errorf("FindIssue: %v, want the dashboard off", err)
	}
}

// TestPaging: $top/$skip pages end on a short page; a fork's and other
// branches' pull requests are dropped; refs page by continuation token.
func TestPaging(t *testing.T) {
	ctx := context.Background()
	s := azuretest.New(azuretest.WithPerPage(100), azuretest.WithRefPage(2))
	defer s.Close()
	for i := range 230 {
		s.OpenPR(azuretest.Human, "feature/"+strings.Repeat("a", i%7+1), "main", "human")
	}
	s.OpenPR(azuretest.Bot, "imagebot/x", "main", "bot")
	for _, b := range []string{"a", "b", "c", "d", "imagebot/x"} {
		s.SetBranch(b, strings.Repeat("c", 40))
	}
	f, _ := open(t, s, azuretest.DefaultToken, time.Minute)
	before := s.Requests()
	all, err := f.Changes(ctx, forge.Query{State: "open", Prefix: "imagebot/"})
	if err != nil || len(all) != 1 {
		t.Fatalf("Changes: %d, %v", len(all), err)
	}
	if n := s.Requests() - before; n != 3 {
		t.Errorf("231 pull requests: %d requests, want 3 pages", n)
	}
	before = s.Requests()
	if err := f.DeleteBranch(ctx, "imagebot/x"); err != nil {
		t.Fatal(err)
	}
	if n := s.Requests() - before; n != 2 {
		t.Errorf("DeleteBranch: %d requests, want 2", n)
	}
}

// TestStatuses: the newest state of each context, genre/name, read as
// rollout reads them.
func TestStatuses(t *testing.T) {
	s := azuretest.New()
	defer s.Close()
	sha := strings.Repeat("d", 40)
	s.SetStatus(sha, azuretest.Status{State: "pending", Genre: "ci", Name: "build"})
	s.SetStatus(sha, azuretest.Status{State: "succeeded", Genre: "ci", Name: "build"})
	s.SetStatus(sha, azuretest.Status{State: "failed", Name: "scan"})
	f, _ := open(t, s, azuretest.DefaultToken, time.Minute)
	got, err := f.Statuses(context.Background(), sha)
	if err != nil || len(got) != 2 || got["ci/build"] != "success" || got["scan"] != "failure" {
		t.Errorf("Statuses: %v, %v", got, err)
	}
}

// TestAuthAndErrors: a job token goes as Bearer, a PAT as Basic; no or a
// wrong token is ErrUnauthorized (Services' 203 sign-in page too), a
// read-only one ErrForbidden on writes, an unknown repository
// ErrNoRepository; a 429 within the wait is waited out in the run's
// clock (Retry-After), beyond it a *RateLimitError.
func TestAuthAndErrors(t *testing.T) {
	ctx := context.Background()
	s := azuretest.New()
	defer s.Close()
	s.SetBranch("b", strings.Repeat("e", 40))
	for _, tok := range []string{azuretest.DefaultToken, azuretest.PipelineToken} {
		f, _ := open(t, s, tok, time.Minute)
		if _, err := f.Repository(ctx); err != nil {
			t.Errorf("token %.6s…: %v", tok, err)
		}
	}
	for _, tok := range []string{"", "wrong"} {
		f, _ := open(t, s, tok, time.Minute)
		_, err := f.Repository(ctx)
		if !errors.Is(err, forge.ErrUnauthorized) || (tok != "" && strings.Contains(err.Error(), tok)) {
			t.Errorf("token %q: %v, want unauthorized", tok, err)
		}
	}
	ro, _ := open(t, s, azuretest.ReadOnlyToken, time.Minute)
	if _, _, err := ro.CreateChange(ctx, forge.NewChange{Title: "t", Head: "b", Base: "main"}); !errors.Is(err, forge.ErrForbidden) {
		t.Errorf("read-only token: %v, want forbidden", err)
	}
	other, err := forge.Open(ctx, azure.Kind, forge.Config{APIURL: s.URL(), Repository: azuretest.Project + "/nope", Token: azuretest.DefaultToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Repository(ctx); !errors.Is(err, forge.ErrNoRepository) || !strings.Contains(err.Error(), "TF401019") {
		t.Errorf("unknown repository: %v", err)
	}

	f, clk := open(t, s, azuretest.DefaultToken, time.Minute)
	s.RateLimitNext(30 * time.Second)
	if _, err := f.Repository(ctx); err != nil || clk.slept != 30*time.Second {
		t.Errorf("a 429 within the wait: %v, slept %v", err, clk.slept)
	}
	short, _ := open(t, s, azuretest.DefaultToken, 10*time.Second)
	s.RateLimitNext(5 * time.Minute)
	var rl *forge.RateLimitError
	if _, err := short.Repository(ctx); !errors.As(err, &rl) || !strings.Contains(err.Error(), "TF400733") {
		t.Errorf("a 429 beyond the wait: %v, want a rate limit", err)
	}
}

// TestLongBody: a body over Azure DevOps' 4,000 characters is cut in the
// middle, its end (the marker) kept, rather than refused.
func TestLongBody(t *testing.T) {
	s := azuretest.New()
	defer s.Close()
	s.SetBranch("b", strings.Repeat("f", 40))
	f, _ := open(t, s, azuretest.DefaultToken, time.Minute)
	body := strings.Repeat("y", 6000) + "<!-- marker -->"
	if _, _, err := f.CreateChange(context.Background(), forge.NewChange{Title: "t", Body: body, Head: "b", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	got := s.PRs()[0].Description
	if len([]rune(got)) > 4000 || !strings.HasSuffix(got, "<!-- marker -->") || !strings.Contains(got, "cut") {
		t.Errorf("description: %d characters, ends %q", len([]rune(got)), got[len(got)-20:])
	}
}
