package githubtest

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
	jwt "github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"
)

const appID = 4242

var (
	appKey   = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })
	otherKey = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })
)

func newKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

// clock is a settable time for the fake.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// appEnv is setup plus a GitHub App installed on acme/apps, a fake clock,
// and the git remote taking what the fake takes.
func appEnv(t *testing.T, opts ...Option) (*env, *clock, int64) {
	t.Helper()
	c := &clock{now: time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)}
	e := setup(t, append([]Option{WithClock(c.Now)}, opts...))
	e.fake.AddApp(App{ID: appID, Slug: "imagebot-test", Key: &appKey().PublicKey})
	inst := e.fake.Install(appID, "acme/apps")
	e.git.CheckTokens(e.fake.ValidToken)
	return e, c, inst
}

// signJWT makes an App JWT with the given times relative to now.
func signJWT(t *testing.T, key *rsa.PrivateKey, iss string, now time.Time, iat, exp time.Duration) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: iss, IssuedAt: jwt.NewNumericDate(now.Add(iat)), ExpiresAt: jwt.NewNumericDate(now.Add(exp)),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAppJWT: the fake takes an App's JWT only as GitHub does.
func TestAppJWT(t *testing.T) {
	e, c, _ := appEnv(t)
	now := c.Now()
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Issuer: "4242",
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute))}).SignedString([]byte("secret"))
	for _, tc := range []struct {
		name, jwt string
		status    int
		message   string
	}{
		{"valid", signJWT(t, appKey(), "4242", now, -time.Minute, 9*time.Minute), http.StatusOK, ""},
		{"another App's key", signJWT(t, otherKey(), "4242", now, -time.Minute, 9*time.Minute), http.StatusUnauthorized, jwtUndecodable},
		{"unknown App", signJWT(t, appKey(), "999", now, -time.Minute, 9*time.Minute), http.StatusUnauthorized, appNotFound},
		{"issuer not a number", signJWT(t, appKey(), "imagebot", now, -time.Minute, 9*time.Minute), http.StatusUnauthorized, jwtBadIssuer},
		{"issued in the future", signJWT(t, appKey(), "4242", now, time.Minute, 9*time.Minute), http.StatusUnauthorized, jwtBadIssued},
		{"expired", signJWT(t, appKey(), "4242", now, -11*time.Minute, -time.Minute), http.StatusUnauthorized, jwtExpired},
		{"more than ten minutes", signJWT(t, appKey(), "4242", now, -time.Minute, 11*time.Minute), http.StatusUnauthorized, jwtTooLong},
		{"HS256", hs, http.StatusUnauthorized, jwtUndecodable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _, err := client(t, e.fake, tc.jwt).Apps.Get(e.ctx, "")
			if tc.status == http.StatusOK {
				if err != nil || a.GetSlug() != "imagebot-test" || a.GetID() != appID {
					t.Fatalf("GET /app: %v, %v", a, err)
				}
				return
			}
			if er := errorResponse(t, err, tc.status); er.Message != tc.message {
				t.Errorf("message %q, want %q", er.Message, tc.message)
			}
		})
	}
	// A JWT is not a token for the repository, nor a token one for /app.
	jwtClient := client(t, e.fake, signJWT(t, appKey(), "4242", now, -time.Minute, 9*time.Minute))
	_, _, err := jwtClient.Repositories.Get(e.ctx, "acme", "apps")
	errorResponse(t, err, http.StatusUnauthorized)
	_, _, err = e.gh.Apps.Get(e.ctx, "")
	if er := errorResponse(t, err, http.StatusUnauthorized); er.Message != jwtUndecodable {
		t.Errorf("token on /app: %q", er.Message)
	}
}

// TestInstallationTokens: the installation is found from the repository,
// its tokens work on its repositories only, for the token lifetime, on
// the API and the git remote alike; each write names the App's bot.
func TestInstallationTokens(t *testing.T) {
	e, c, inst := appEnv(t, WithTokenLifetime(10*time.Minute))
	if _, err := e.git.CreateRepo("acme", "other", map[string][]byte{"a": []byte("a\n")}, "main"); err != nil {
		t.Fatal(err)
	}
	e.fake.AddRepo("acme", "other", "main", BareRepos(e.git.Dir))
	asApp := client(t, e.fake, signJWT(t, appKey(), "4242", c.Now(), -time.Minute, 9*time.Minute))

	found, _, err := asApp.Apps.FindRepositoryInstallation(e.ctx, "acme", "apps")
	if err != nil || found.GetID() != inst || found.GetAppID() != appID {
		t.Fatalf("installation of acme/apps: %v, %v; want %d", found, err, inst)
	}
	_, _, err = asApp.Apps.FindRepositoryInstallation(e.ctx, "acme", "other")
	errorResponse(t, err, http.StatusNotFound)
	_, _, err = asApp.Apps.CreateInstallationToken(e.ctx, inst+1, nil)
	errorResponse(t, err, http.StatusNotFound)

	tok, _, err := asApp.Apps.CreateInstallationToken(e.ctx, inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.GetExpiresAt().Sub(c.Now()); got != 10*time.Minute {
		t.Errorf("token lives %v, want the 10m set", got)
	}
	bot := client(t, e.fake, tok.GetToken())
	e.branch("imagebot/nginx", "1.26.1")
	pr, _, err := bot.PullRequests.Create(e.ctx, "acme", "apps", &github.NewPullRequest{
		Title: github.String("Update nginx"), Head: github.String("imagebot/nginx"), Base: github.String("main"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetUser().GetLogin() != "imagebot-test[bot]" || pr.GetUser().GetType() != "Bot" {
		t.Errorf("PR opened by %+v", pr.GetUser())
	}
	if log := e.fake.WriteLog(); len(log) != 1 || log[0].Actor != "imagebot-test[bot]" || log[0].Path != "/repos/acme/apps/pulls" {
		t.Errorf("write log %+v", log)
	}
	_, _, err = bot.Repositories.Get(e.ctx, "acme", "other")
	errorResponse(t, err, http.StatusNotFound)
	_, _, err = bot.Users.Get(e.ctx, "")
	errorResponse(t, err, http.StatusForbidden)
	u, _, err := bot.Users.Get(e.ctx, "imagebot-test[bot]")
	if err != nil || NoreplyEmail(u.GetLogin()) != NoreplyEmail("imagebot-test[bot]") || u.GetID() == 41898282 {
		t.Errorf("bot user %v, %v", u, err)
	}
	if err := fetch(e, tok.GetToken()); err != nil {
		t.Errorf("git fetch with a fresh installation token: %v", err)
	}

	// Expired: GitHub's 401 on the API, and the remote refuses it too.
	c.add(10 * time.Minute)
	_, _, err = bot.Repositories.Get(e.ctx, "acme", "apps")
	if er := errorResponse(t, err, http.StatusUnauthorized); er.Message != "Bad credentials" {
		t.Errorf("expired token: %q", er.Message)
	}
	if err := fetch(e, tok.GetToken()); err == nil {
		t.Error("git fetch with an expired installation token succeeded")
	}
	if err := fetch(e, apiToken); err != nil {
		t.Errorf("git fetch with the fake's token: %v", err)
	}
	if n := len(e.fake.InstallationTokens()); n != 1 {
		t.Errorf("%d tokens issued", n)
	}
}

// fetch fetches main from the remote with token as the password.
func fetch(e *env, token string) error {
	r, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return err
	}
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{e.git.URL("acme/apps")}}); err != nil {
		return err
	}
	var auth transport.AuthMethod = &githttp.BasicAuth{Username: "x-access-token", Password: token}
	return r.FetchContext(e.ctx, &git.FetchOptions{Auth: auth, RefSpecs: []config.RefSpec{"+refs/heads/main:refs/remotes/origin/main"}})
}
