package bitbucket_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/bitbucket"
	"github.com/imagebot/imagebot/internal/testing/bitbuckettest"
)

const (
	token = "ATATT_SECRET_t0ken_never_printed"
	email = "bot@example.com"
	repo  = "acme/app"
)

// clock records the waits asked of it and passes none.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return nil
}

type world struct {
	bb    *bitbuckettest.Server
	clock *clock
}

func newWorld(t *testing.T, opts []bitbuckettest.Option, repoOpts ...bitbuckettest.RepoOption) *world {
	t.Helper()
	c := &clock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	bb := bitbuckettest.New(append([]bitbuckettest.Option{bitbuckettest.WithToken(email, token),
		bitbuckettest.WithReadOnlyToken("read-only"), bitbuckettest.WithClock(c.Now)}, opts...)...)
	t.Cleanup(bb.Close)
	bb.AddRepo("acme", "app", "main", repoOpts...)
	return &world{bb: bb, clock: c}
}

func (w *world) forge(t *testing.T, tok string) forge.Forge {
	t.Helper()
	f, err := bitbucket.New(context.Background(), forge.Config{APIURL: w.bb.URL() + "/2.0", Repository: repo,
		Token: tok, User: email, MaxWait: 10 * time.Second, Clock: w.clock})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// must is v, and a failing test (a panic) when err is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestPullRequestLifecycle opens a pull request with the default
// reviewers (not the bot), finds the open one again on a duplicate, edits
// it keeping its reviewers, comments, and declines it: closed, not merged.
func TestPullRequestLifecycle(t *testing.T) {
	w := newWorld(t, nil, bitbuckettest.WithDefaultReviewers(bitbuckettest.HumanID, bitbuckettest.BotAccountID))
	ctx := context.Background()
	f := w.forge(t, token)
	r := must(f.Repository(ctx))
	if r.DefaultBranch != "main" || !strings.HasSuffix(r.URL, "/acme/app") {
		t.Fatalf("repository = %+v", r)
	}
	nc := forge.NewChange{Title: "Update nginx to 1.27.1", Body: "body <!-- imagebot -->", Head: "imagebot/nginx", Base: "main", Draft: true}
	c, created, err := f.CreateChange(ctx, nc)
	if err != nil || !created || c.Number != 1 || c.State != "open" || !c.OwnBranch || c.Author != bitbuckettest.BotAccountID {
		t.Fatalf("create = %+v, %v, %v", c, created, err)
	}
	prs := w.bb.PRs(repo)
	if !slices.Equal(prs[0].Reviewers, []string{bitbuckettest.HumanID}) || !prs[0].Draft {
		t.Fatalf("reviewers %v draft %v: want the default reviewer but the bot, a draft", prs[0].Reviewers, prs[0].Draft)
	}
	again, created, err := f.CreateChange(ctx, nc)
	if err != nil || created || again.Number != 1 {
		t.Fatalf("duplicate create = %+v, %v, %v; want #1 not created", again, created, err)
	}
	title := "Update nginx to 1.27.2"
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if err := f.RequestReviewers(ctx, 1, []string{"557058:joe", bitbuckettest.HumanID}); err != nil {
		t.Fatal(err)
	}
	prs = w.bb.PRs(repo)
	if prs[0].Title != title || prs[0].Description != nc.Body || !slices.Equal(prs[0].Reviewers, []string{bitbuckettest.HumanID, "557058:joe"}) {
		t.Fatalf("after edit: %+v; want the new title, the body and both reviewers kept", prs[0])
	}
	if err := f.Comment(ctx, 1, "superseded <!-- mark -->"); err != nil {
		t.Fatal(err)
	}
	bot := func(login string) bool { return login == bitbuckettest.BotAccountID }
	if ok := must(f.Commented(ctx, 1, "<!-- mark -->", bot)); !ok {
		t.Fatal("Commented = false after Comment")
	}
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Close: true}); err != nil {
		t.Fatal(err)
	}
	if s := w.bb.PRs(repo)[0].State; s != "DECLINED" {
		t.Fatalf("closed PR is %s, want DECLINED", s)
	}
	closed := must(f.ClosedChanges(ctx, forge.Query{Base: "main", Author: bitbuckettest.BotAccountID}, []string{"imagebot/nginx"}))
	if cs := closed["imagebot/nginx"]; len(cs) != 1 || cs[0].State != "closed" || cs[0].Merged {
		t.Fatalf("closed = %+v; want one declined: closed, not merged", cs)
	}
	if err := f.DeleteBranch(ctx, "imagebot/nginx"); err != nil {
		t.Fatal(err)
	}
	if d := w.bb.DeletedBranches(repo); !slices.Equal(d, []string{"imagebot/nginx"}) {
		t.Fatalf("deleted %v", d)
	}
	if u := f.BlobURL("abc", "apps/a b.yaml", 3); !strings.HasSuffix(u, "/acme/app/src/abc/apps/a%20b.yaml#lines-3") {
		t.Fatalf("BlobURL = %s", u)
	}
}

// TestNoOpRerunCost: a rerun with nothing to do costs Repository and one
// listing of the bot's open pull requests: 2 requests, whatever the
// number of other people's and forks' pull requests on other branches.
func TestNoOpRerunCost(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	f := w.forge(t, token)
	for _, b := range []string{"imagebot/a", "imagebot/b"} {
		must(f.Repository(ctx))
		if _, _, err := f.CreateChange(ctx, forge.NewChange{Title: b, Head: b, Base: "main"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		w.bb.OpenPR(repo, "feature/"+string(rune('a'+i%26)), "main", "human", bitbuckettest.HumanID, "")
	}
	w.bb.OpenPR(repo, "imagebot/c", "main", "fork", bitbuckettest.BotAccountID, "evil/app")
	before := w.bb.Requests()
	f = w.forge(t, token)
	must(f.Repository(ctx))
	open := must(f.Changes(ctx, forge.Query{State: "open", Prefix: "imagebot/", Base: "main", Author: bitbuckettest.BotAccountID}))
	if n := w.bb.Requests() - before; n != 2 {
		t.Errorf("no-op rerun: %d requests, want 2", n)
	}
	if len(open) != 2 || open[0].Head != "imagebot/a" || open[1].Head != "imagebot/b" {
		t.Fatalf("open = %+v; want the bot's two, oldest first, not the fork's", open)
	}
}

// TestPagination follows the next links to the end: 7 pull requests in
// pages of 2 are 4 requests, and a fork's pull request is dropped.
func TestPagination(t *testing.T) {
	w := newWorld(t, []bitbuckettest.Option{bitbuckettest.WithPerPage(2)})
	for i := range 6 {
		w.bb.OpenPR(repo, "imagebot/"+string(rune('a'+i)), "main", "t", bitbuckettest.HumanID, "")
	}
	w.bb.OpenPR(repo, "imagebot/x", "main", "fork", bitbuckettest.HumanID, "evil/app")
	before := w.bb.Requests()
	all := must(w.forge(t, token).Changes(context.Background(), forge.Query{State: "all", Prefix: "imagebot/"}))
	if len(all) != 6 || w.bb.Requests()-before != 4 {
		t.Fatalf("%d pull requests in %d requests; want 6 in 4", len(all), w.bb.Requests()-before)
	}
}

// TestErrors reads Bitbucket's refusals as the shared errors, never
// quoting the token.
func TestErrors(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	var errs []error
	defer func() {
		for _, e := range errs {
			if e != nil && strings.Contains(e.Error(), token) {
				t.Errorf("error quotes the token: %v", e)
			}
		}
	}()
	_, err := w.forge(t, "wrong").Repository(ctx)
	errs = append(errs, err)
	if !errors.Is(err, forge.ErrUnauthorized) {
		t.Errorf("wrong token: %v, want ErrUnauthorized", err)
	}
	err = w.forge(t, "read-only").Comment(ctx, 1, "x")
	errs = append(errs, err)
	if !errors.Is(err, forge.ErrForbidden) {
		t.Errorf("read-only token writes: %v, want ErrForbidden", err)
	}
	f, _ := bitbucket.New(ctx, forge.Config{APIURL: w.bb.URL(), Repository: "acme/gone", Token: token, User: email, Clock: w.clock})
	_, err = f.Repository(ctx)
	errs = append(errs, err)
	if !errors.Is(err, forge.ErrNoRepository) || !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("missing repository: %v, want ErrNoRepository", err)
	}
	if _, err := bitbucket.New(ctx, forge.Config{Repository: repo, Token: token}); err == nil || !strings.Contains(err.Error(), "BITBUCKET_USERNAME") {
		t.Errorf("no username: %v", err)
	}
	if err := w.forge(t, token).EnableAutoMerge(ctx, &forge.Change{Number: 1}); !errors.Is(err, forge.ErrNotSupported) {
		t.Errorf("auto-merge: %v, want ErrNotSupported", err)
	}
}

// TestRateLimit waits out a 429's Retry-After within MaxWait, in the
// run's clock, and reports a longer one as a *forge.RateLimitError.
func TestRateLimit(t *testing.T) {
	w := newWorld(t, nil)
	ctx := context.Background()
	f := w.forge(t, token)
	w.bb.FailNext("GET", "/pullrequests", http.StatusTooManyRequests, http.Header{"Retry-After": {"7"}})
	if _, err := f.Changes(ctx, forge.Query{State: "open"}); err != nil {
		t.Fatalf("after a 7 s limit: %v", err)
	}
	if !slices.Contains(w.clock.slept, 7*time.Second) {
		t.Errorf("slept %v, want 7s", w.clock.slept)
	}
	for range 4 {
		w.bb.FailNext("POST", "/comments", http.StatusTooManyRequests, http.Header{"Retry-After": {"3600"}})
	}
	err := f.Comment(ctx, 1, "x")
	var rl *forge.RateLimitError
	if !errors.As(err, &rl) {
		t.Fatalf("an hour's limit: %v, want a RateLimitError", err)
	}
}

// TestDashboardIssue finds, opens and edits the bot's issue where the
// tracker is on, and says ErrIssuesOff at no cost where it is off.
func TestDashboardIssue(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, []bitbuckettest.Option{bitbuckettest.WithPerPage(1)})
	f := w.forge(t, token)
	must(f.Repository(ctx))
	first := func(is []*forge.Issue) *forge.Issue {
		for _, i := range is {
			if i.Title == "Dashboard" {
				return i
			}
		}
		return nil
	}
	if got := must(f.FindIssue(ctx, bitbuckettest.BotAccountID, first)); got != nil {
		t.Fatalf("found %+v before any", got)
	}
	must(f.CreateIssue(ctx, "Other", "x", nil))
	is := must(f.CreateIssue(ctx, "Dashboard", "v1", []string{"dependencies"}))
	if err := f.EditIssue(ctx, is.Number, "v2"); err != nil {
		t.Fatal(err)
	}
	got := must(f.FindIssue(ctx, bitbuckettest.BotAccountID, first))
	if got == nil || got.Number != 2 || got.Body != "v2" || got.Author != bitbuckettest.BotAccountID {
		t.Fatalf("found %+v; want #2 with v2 on the second page", got)
	}

	off := newWorld(t, nil, bitbuckettest.WithIssuesOff())
	f = off.forge(t, token)
	must(f.Repository(ctx))
	before := off.bb.Requests()
	if _, err := f.FindIssue(ctx, bitbuckettest.BotAccountID, first); !errors.Is(err, forge.ErrIssuesOff) || errors.Is(err, forge.ErrNoIssueTracker) {
		t.Errorf("tracker off: %v, want ErrIssuesOff, which a setting turns on", err)
	}
	if n := off.bb.Requests() - before; n != 0 {
		t.Errorf("tracker off known from the repository: %d requests, want 0", n)
	}
	// Turned off since Repository read it: the 404 says so.
	if err := off.forge(t, token).EditIssue(ctx, 1, "x"); !errors.Is(err, forge.ErrIssuesOff) {
		t.Errorf("edit on a tracker that is off: %v, want ErrIssuesOff", err)
	}
}

// TestStatuses reads Bitbucket's build states in rollout's words.
func TestStatuses(t *testing.T) {
	w := newWorld(t, nil)
	w.bb.AddStatus(repo, "abc", bitbuckettest.Status{Key: "ci", State: "SUCCESSFUL"})
	w.bb.AddStatus(repo, "abc", bitbuckettest.Status{Key: "e2e", State: "INPROGRESS"})
	w.bb.AddStatus(repo, "abc", bitbuckettest.Status{Key: "lint", State: "FAILED"})
	w.bb.AddStatus(repo, "abc", bitbuckettest.Status{Key: "lint", State: "STOPPED"})
	got := must(w.forge(t, token).Statuses(context.Background(), "abc"))
	want := map[string]string{"ci": "success", "e2e": "pending", "lint": "error"}
	if len(got) != len(want) || got["ci"] != want["ci"] || got["e2e"] != want["e2e"] || got["lint"] != want["lint"] {
		t.Fatalf("statuses = %v, want %v", got, want)
	}
}

// TestRecentChanges lists the pull requests opened since, newest first,
// and stops at the first older one.
func TestRecentChanges(t *testing.T) {
	w := newWorld(t, nil)
	w.bb.OpenPR(repo, "old", "main", "old", bitbuckettest.HumanID, "")
	w.clock.Sleep(context.Background(), 2*time.Hour)
	w.bb.OpenPR(repo, "new1", "main", "new1", bitbuckettest.HumanID, "")
	w.bb.OpenPR(repo, "new2", "main", "new2", bitbuckettest.HumanID, "")
	w.bb.DeclinePR(repo, 3)
	got := must(w.forge(t, token).RecentChanges(context.Background(), w.clock.Now().Add(-time.Hour)))
	if len(got) != 2 || got[0].Head != "new2" || got[1].Head != "new1" {
		t.Fatalf("recent = %+v; want new2, new1", got)
	}
}

// TestNextLinks: a next link is followed only on the API's own origin,
// where the credentials may go, and one that links back is an error, not
// a loop.
func TestNextLinks(t *testing.T) {
	for name, next := range map[string]string{
		"another host": "https://evil.example/2.0/repositories/acme/app/pullrequests?page=2",
		"links back":   "{self}/2.0/repositories/acme/app/pullrequests?page=1",
	} {
		t.Run(name, func(t *testing.T) {
			var self string
			var other int
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/2.0/repositories/acme/app/pullrequests" {
					other++
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"values":[],"next":%q}`, strings.ReplaceAll(next, "{self}", self))
			}))
			defer srv.Close()
			self = srv.URL
			f, err := bitbucket.New(context.Background(), forge.Config{APIURL: srv.URL, Repository: repo, Token: token,
				User: email, Clock: &clock{}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Changes(context.Background(), forge.Query{State: "open"})
			if err == nil || other != 0 || strings.Contains(err.Error(), token) {
				t.Fatalf("err %v, %d requests elsewhere", err, other)
			}
		})
	}
}
