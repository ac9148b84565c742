package githubtest

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestAuth(t *testing.T) {
	e := setup(t, nil)
	tests := []struct {
		name, header string
		want         int
	}{
		{"bearer", "Bearer " + apiToken, http.StatusOK},
		{"token scheme", "token " + apiToken, http.StatusOK},
		{"none", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
		{"basic", "Basic " + apiToken, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.fake.URL()+"/repos/acme/apps", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || resp.Header.Get("X-RateLimit-Limit") == "" {
				t.Errorf("status %d, X-RateLimit-Limit %q; want %d and a limit", resp.StatusCode, resp.Header.Get("X-RateLimit-Limit"), tc.want)
			}
		})
	}
	_, _, err := client(t, e.fake, "").Repositories.Get(e.ctx, "acme", "apps")
	if er := errorResponse(t, err, http.StatusUnauthorized); er.Message != "Bad credentials" {
		t.Errorf("message %q", er.Message)
	}
	if got := e.fake.Writes(); got != 0 {
		t.Errorf("Writes() = %d, want 0", got)
	}
}

func TestRepository(t *testing.T) {
	e := setup(t, nil, WithAutoMerge())
	r, resp, err := e.gh.Repositories.Get(e.ctx, "ACME", "Apps") // names ignore case
	if err != nil {
		t.Fatal(err)
	}
	got := []any{r.GetFullName(), r.GetDefaultBranch(), r.GetAllowAutoMerge(), r.GetCloneURL(), r.GetHTMLURL()}
	want := []any{"acme/apps", "main", true, e.git.URL("acme/apps"), e.fake.URL() + "/acme/apps"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repository (-want +got):\n%s", diff)
	}
	if resp.Rate.Limit != 5000 || resp.Rate.Remaining != 4999 || resp.Rate.Reset.Before(time.Now()) {
		t.Errorf("rate %+v", resp.Rate)
	}
}

func TestNotFound(t *testing.T) {
	e := setup(t, nil)
	for _, path := range []string{"repos/acme/nope", "repos/acme/apps/pulls/7", "repos/acme/apps/hooks", "repos/acme/apps/git/commits/0123456789012345678901234567890123456789"} {
		req, _ := e.gh.NewRequest(http.MethodGet, path, nil)
		_, err := e.gh.Do(e.ctx, req, nil)
		if er := errorResponse(t, err, http.StatusNotFound); er.Message != "Not Found" {
			t.Errorf("%s: message %q", path, er.Message)
		}
	}
	// A known path with another method is GitHub's JSON 404 too.
	req, _ := e.gh.NewRequest(http.MethodDelete, "repos/acme/apps/pulls", nil)
	_, err := e.gh.Do(e.ctx, req, nil)
	errorResponse(t, err, http.StatusNotFound)
}

func TestFailNext(t *testing.T) {
	e := setup(t, nil)
	reset := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	e.fake.FailNext("GET", "/pulls", http.StatusForbidden, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}})
	_, _, err := e.gh.PullRequests.List(e.ctx, "acme", "apps", nil)
	var rl *github.RateLimitError
	if !errors.As(err, &rl) || rl.Rate.Reset.Unix() != mustAtoi(t, reset) {
		t.Fatalf("error %v (%T), want *github.RateLimitError resetting at %s", err, err, reset)
	}

	// go-github now refuses core requests until the reset, so go on with
	// a fresh client, as a new run of the bot would.
	gh := client(t, e.fake, apiToken)
	e.fake.FailNext("", "/repos/acme/apps", http.StatusForbidden, http.Header{"Retry-After": {"30"}})
	_, _, err = gh.Repositories.Get(e.ctx, "acme", "apps")
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 30*time.Second {
		t.Fatalf("error %v (%T), want *github.AbuseRateLimitError with Retry-After 30s", err, err)
	}

	// go-github also holds back after a secondary limit: fresh client again.
	gh = client(t, e.fake, apiToken)
	e.fake.FailNext("POST", "/pulls", http.StatusTooManyRequests, http.Header{"Retry-After": {"5"}})
	e.fake.FailNext("POST", "/pulls", http.StatusBadGateway, nil)
	e.branch("imagebot/nginx", "1.26.1")
	in := &github.NewPullRequest{Title: github.String("t"), Head: github.String("imagebot/nginx"), Base: github.String("main")}
	_, _, err = gh.PullRequests.Create(e.ctx, "acme", "apps", in)
	if er := errorResponse(t, err, http.StatusTooManyRequests); er.Response.Header.Get("Retry-After") != "5" {
		t.Errorf("429 without Retry-After")
	}
	_, _, err = gh.PullRequests.Create(e.ctx, "acme", "apps", in)
	errorResponse(t, err, http.StatusBadGateway)
	// Each fault fires once: the retry goes through.
	if _, _, err = gh.PullRequests.Create(e.ctx, "acme", "apps", in); err != nil {
		t.Fatal(err)
	}
	if got := e.fake.Writes(); got != 3 {
		t.Errorf("Writes() = %d, want 3 (failed attempts count)", got)
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWrites(t *testing.T) {
	e := setup(t, nil)
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	e.gh.PullRequests.List(e.ctx, "acme", "apps", nil)
	e.gh.PullRequests.Get(e.ctx, "acme", "apps", 1)
	e.gh.Issues.ListComments(e.ctx, "acme", "apps", 1, nil)
	e.createPRErr("imagebot/nginx") // a refused write is still a write
	query := `{"query":"query { viewer { login } }"}`
	req, _ := http.NewRequest(http.MethodPost, e.fake.URL()+"/graphql", strings.NewReader(query))
	req.Header.Set("Authorization", "Bearer "+apiToken)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if got := e.fake.Writes(); got != 2 {
		t.Errorf("Writes() = %d, want 2", got)
	}
	// Every authenticated request is counted: five REST calls (one a
	// refused write) and the GraphQL query; the branch came from git.
	if got := e.fake.Requests(); got != 6 {
		t.Errorf("Requests() = %d, want 6", got)
	}
}

// TestSecondaryLimit: beyond the writes a window allows, GitHub refuses a
// write with a Retry-After saying when the window turns, as
// *github.AbuseRateLimitError for a 403; reads go on. In the fake's clock,
// waiting that long lets the next write through.
func TestSecondaryLimit(t *testing.T) {
	now := time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	e := setup(t, []Option{WithClock(clock), WithSecondaryLimit(SecondaryLimit{Writes: 2, Per: time.Minute})})
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	now = now.Add(20 * time.Second)
	if _, _, err := e.gh.Issues.CreateComment(e.ctx, "acme", "apps", 1, &github.IssueComment{Body: github.String("one")}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * time.Second)
	_, _, err := e.gh.Issues.CreateComment(e.ctx, "acme", "apps", 1, &github.IssueComment{Body: github.String("two")})
	var abuse *github.AbuseRateLimitError
	if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 30*time.Second {
		t.Fatalf("third write: %v (%T), want *github.AbuseRateLimitError with Retry-After 30s", err, err)
	}
	// go-github holds back after a secondary limit: a fresh client reads.
	gh := client(t, e.fake, apiToken)
	pr, _, err := gh.PullRequests.Get(e.ctx, "acme", "apps", 1)
	if err != nil {
		t.Fatalf("a read under the secondary limit: %v", err)
	}
	if got, want := pr.GetCreatedAt().Time, now.Add(-30*time.Second); !got.Equal(want) {
		t.Errorf("PR created at %v, want the fake clock's %v", got, want)
	}
	now = now.Add(30 * time.Second)
	if _, _, err := gh.Issues.CreateComment(e.ctx, "acme", "apps", 1, &github.IssueComment{Body: github.String("two")}); err != nil {
		t.Errorf("write after the window turned: %v", err)
	}

	// A 429, GitHub's other answer, reaches go-github as a plain error.
	e = setup(t, []Option{WithClock(clock), WithSecondaryLimit(SecondaryLimit{Writes: 1, Per: time.Hour, Status: http.StatusTooManyRequests})})
	e.branch("imagebot/nginx", "1.26.1")
	e.createPR("imagebot/nginx")
	_, _, err = e.gh.Issues.CreateComment(e.ctx, "acme", "apps", 1, &github.IssueComment{Body: github.String("x")})
	if er := errorResponse(t, err, http.StatusTooManyRequests); er.Response.Header.Get("Retry-After") != "3600" {
		t.Errorf("Retry-After %q, want 3600", er.Response.Header.Get("Retry-After"))
	}
}

func (e *env) createPRErr(head string) error {
	_, _, err := e.gh.PullRequests.Create(e.ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String("x"), Head: github.String(head), Base: github.String("main"),
	})
	return err
}

// TestEnterpriseURLs covers GITHUB_API_URL handed to WithEnterpriseURLs,
// which appends /api/v3/: routes and Link headers keep the prefix.
func TestEnterpriseURLs(t *testing.T) {
	e := setup(t, []Option{WithPerPage(1)})
	gh, err := github.NewClient(nil).WithAuthToken(apiToken).WithEnterpriseURLs(e.fake.URL(), e.fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	e.branch("imagebot/a", "a")
	e.branch("imagebot/b", "b")
	e.createPR("imagebot/a")
	e.createPR("imagebot/b")
	_, resp, err := gh.PullRequests.List(e.ctx, "acme", "apps", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.NextPage != 2 || !strings.Contains(resp.Header.Get("Link"), "/api/v3/repos/acme/apps/pulls?page=2") {
		t.Errorf("NextPage %d, Link %q", resp.NextPage, resp.Header.Get("Link"))
	}
	var buf bytes.Buffer
	req, _ := gh.NewRequest(http.MethodPost, "graphql", map[string]string{"query": "query { viewer { login } }"})
	if _, err := gh.Do(e.ctx, req, &buf); err != nil || !strings.Contains(buf.String(), "unsupported") {
		t.Errorf("graphql under /api/v3: %v %s", err, buf.String())
	}
}

// TestPrimaryLimit: beyond the hourly budget GitHub answers 403 with
// X-RateLimit-Remaining: 0 and the reset, go-github's *RateLimitError,
// until the window turns in the fake's clock.
func TestPrimaryLimit(t *testing.T) {
	now := time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC)
	e := setup(t, []Option{WithClock(func() time.Time { return now }), WithRateLimit(2)})
	for range 2 {
		if _, _, err := e.gh.Repositories.Get(e.ctx, "acme", "apps"); err != nil {
			t.Fatal(err)
		}
	}
	// go-github would refuse on its own now; a fresh client asks.
	_, _, err := client(t, e.fake, apiToken).Repositories.Get(e.ctx, "acme", "apps")
	var rl *github.RateLimitError
	if !errors.As(err, &rl) || !rl.Rate.Reset.Time.Equal(now.Add(time.Hour)) || rl.Rate.Limit != 2 {
		t.Fatalf("third request: %v (%T), want *github.RateLimitError resetting at %v", err, err, now.Add(time.Hour))
	}
	now = now.Add(time.Hour + time.Second)
	if _, _, err := client(t, e.fake, apiToken).Repositories.Get(e.ctx, "acme", "apps"); err != nil {
		t.Errorf("after the reset: %v", err)
	}
}
