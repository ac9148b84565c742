package gitops_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

const (
	appID   = 31337
	appSlug = "acme-imagebot"
	appBot  = appSlug + "[bot]"
)

// The App's private key and another one, made once: RSA keys take a while.
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

// pemOf is the key as GitHub lets an App's owner download it.
func pemOf(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

// installApp registers the App with the world's GitHub, installs it on the
// repository (unless not), and lets the git remote take what the API
// takes. Every secret of the App is checked for in the output when the
// world ends.
func (w *world) installApp(t *testing.T, install bool) {
	t.Helper()
	w.gh.AddApp(githubtest.App{ID: appID, Slug: appSlug, Key: &appKey().PublicKey})
	if install {
		w.gh.Install(appID, owner+"/"+name)
	}
	w.gs.CheckTokens(w.gh.ValidToken)
	t.Cleanup(func() { w.assertNoAppSecrets(t, w.logs.String(), w.out.String()) })
}

// appOptions are the options of a run as the App, without GITHUB_TOKEN.
func (w *world) appOptions(t *testing.T, key *rsa.PrivateKey, id, installation int64) gitops.Options {
	t.Helper()
	app, err := gitops.NewApp(id, pemOf(key), installation)
	if err != nil {
		t.Fatal(err)
	}
	o := w.options(t)
	o.Token, o.App = "", app
	return o
}

// runAs is run with other options.
func (w *world) runAs(t *testing.T, o gitops.Options, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	s, err := gitops.Open(w.ctx, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	p, reg := w.planFS(t, s.FS())
	return w.finish(t, s, p, reg, edit...)
}

// assertNoAppSecrets: no installation token, JWT or piece of the private
// key in any of texts, nor in the PRs.
func (w *world) assertNoAppSecrets(t *testing.T, texts ...string) {
	t.Helper()
	for _, pr := range w.host.changes() {
		texts = append(texts, pr.Title+pr.Body+strings.Join(pr.Comments, "\n"))
	}
	secrets := w.gh.InstallationTokens()
	// Every JWT starts with its header, {"alg":"RS256","typ":"JWT"}.
	secrets = append(secrets, "eyJhbGciOi")
	for _, k := range []*rsa.PrivateKey{appKey(), otherKey()} {
		lines := strings.Split(string(pemOf(k)), "\n")
		secrets = append(secrets, lines[1], lines[len(lines)/2])
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("a secret (%.10s...) was printed:\n%s", s, text)
			}
		}
	}
}

// TestAppRun: run authenticated as a GitHub App opens every PR as the
// App's bot, with installation tokens for the API and the git remote
// alike (there is no other token to use). With GITHUB_TOKEN set too, the
// App wins, and says so.
func TestAppRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.installApp(t, true)
	o := w.appOptions(t, appKey(), appID, 0)
	res := w.runAs(t, o)
	for _, err := range res.Failed {
		t.Errorf("failed: %v", err)
	}
	diffSets(t, "opened", res.Opened, allBranches())
	if n := w.gs.Pushes(); n != len(streams) {
		t.Errorf("%d pushes, want %d", n, len(streams))
	}
	for _, pr := range w.host.changes() {
		if pr.Author != appBot {
			t.Errorf("#%d opened by %s, want %s", pr.Number, pr.Author, appBot)
		}
	}
	for _, wr := range w.gh.WriteLog() {
		if wr.Actor != appBot {
			t.Errorf("%s %s by %s, want %s", wr.Method, wr.Path, wr.Actor, appBot)
		}
	}
	if n := len(w.gh.InstallationTokens()); n != 1 {
		t.Errorf("%d installation tokens for one short run, want 1", n)
	}

	// Both configured: the App, and a log line that says so. Nothing to do.
	o.Token = token
	before := w.counters()
	res = w.runAs(t, o)
	diffSets(t, "unchanged", res.Unchanged, allBranches())
	if after := w.counters(); after != before {
		t.Errorf("rerun wrote: %+v -> %+v", before, after)
	}
	if !strings.Contains(w.logs.String(), "both GITHUB_TOKEN and a GitHub App are set: authenticating as the App") {
		t.Errorf("no word of which credential won:\n%s", w.logs.String())
	}
}

// TestAppTokenRefreshed: installation tokens live ten minutes here, and
// each push takes three in the fake clock, so the first token runs out in
// the middle of the run. Every API request and every push carries a token
// good for a while yet: nothing fails, and the run fetched several tokens.
func TestAppTokenRefreshed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withGitHub(githubtest.WithTokenLifetime(10*time.Minute)))
	w.installApp(t, true)
	for range streams {
		// After the push's credentials were checked, before the next
		// request: no single request outlives its token.
		w.gs.OnNextPush(gittest.BeforeUpdate, func() { w.clock.advance(3 * time.Minute) })
	}
	start := w.clock.Now()
	res := w.runAs(t, w.appOptions(t, appKey(), appID, 0))
	for _, err := range res.Failed {
		t.Errorf("failed: %v", err)
	}
	diffSets(t, "opened", res.Opened, allBranches())
	if took := w.clock.Now().Sub(start); took < 50*time.Minute {
		t.Fatalf("the run took %v of fake time; the scenario wants five token lifetimes", took)
	}
	if n := len(w.gh.InstallationTokens()); n < 5 {
		t.Errorf("%d installation tokens in %v with ten-minute tokens", n, w.clock.Now().Sub(start))
	}
	for _, pr := range w.host.changes() {
		if pr.Author != appBot {
			t.Errorf("#%d opened by %s", pr.Number, pr.Author)
		}
	}
}

// advance moves the clock on, as time passing during a run would.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestAppErrors: an App that cannot authenticate fails Open with what to
// fix, and without any of its secrets.
func TestAppErrors(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withRepo(map[string][]byte{"README.md": []byte("nothing\n")}, nil))
	w.installApp(t, false)
	for _, tc := range []struct {
		name     string
		key      *rsa.PrivateKey
		id, inst int64
		want     []string
	}{
		{"unknown App", appKey(), 999, 0, []string{"GitHub App 999", "Integration not found", "IMAGEBOT_APP_ID"}},
		{"another App's key", otherKey(), appID, 0, []string{"GitHub App 31337", "A JSON web token could not be decoded", "private key"}},
		{"not installed", appKey(), appID, 0, []string{"GitHub App 31337 is not installed on acme/platform-gitops", "IMAGEBOT_APP_INSTALLATION_ID"}},
		{"no such installation", appKey(), appID, 424242, []string{"GitHub App 31337 has no installation 424242", "IMAGEBOT_APP_INSTALLATION_ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gitops.Open(w.ctx, w.appOptions(t, tc.key, tc.id, tc.inst))
			if err == nil {
				t.Fatal("Open succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			w.assertNoAppSecrets(t, err.Error())
		})
	}
	// Keys that are no keys are refused before any request.
	key := pemOf(appKey())
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": key[:len(key)/2],
		"public":    pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&appKey().PublicKey)}),
	} {
		_, err := gitops.NewApp(appID, bad, 0)
		if err == nil || !strings.Contains(err.Error(), "GitHub App 31337: private key") {
			t.Errorf("%s key: %v", name, err)
		} else {
			w.assertNoAppSecrets(t, err.Error())
		}
	}
	if _, err := gitops.NewApp(0, key, 0); err == nil {
		t.Error("App ID 0 accepted")
	}
	// A key with its line ends written as \n, as a one-line secret has it.
	oneLine := strings.ReplaceAll(strings.TrimSpace(string(key)), "\n", `\n`)
	app, err := gitops.NewApp(appID, []byte(oneLine), 0)
	if err != nil {
		t.Errorf("one-line key: %v", err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(verb, app); s != "GitHub App 31337" {
			t.Errorf("%s prints %q", verb, s)
		}
	}
}

// TestAppNoOpRerunCost: as a GitHub App, a rerun with nothing to do costs
// what it costs with GITHUB_TOKEN plus the App's own two requests (find
// the installation, get a token) and who it is (GET /app, which
// GITHUB_TOKEN's ghs_ prefix spares), and one more with SignedCommits
// (the App's bot user, to know its commits); none of them writes.
func TestAppNoOpRerunCost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(*gitops.RunOptions)
		inst  bool
		extra int
	}{
		{"pushed", func(*gitops.RunOptions) {}, false, 3},
		{"installation given", func(*gitops.RunOptions) {}, true, 2},
		{"signed commits", signed, false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, withRepo(fleet(t, 5)))
			w.installApp(t, false)
			inst := w.gh.Install(appID, owner+"/"+name)
			if !tc.inst {
				inst = 0
			}
			o := w.appOptions(t, appKey(), appID, inst)
			if res := w.runAs(t, o, tc.edit); len(res.Opened) != 5 || len(res.Failed) > 0 {
				t.Fatalf("first run opened %d, failed %v", len(res.Opened), res.Failed)
			}
			before, requests := w.counters(), w.host.requests()
			w.runAs(t, o, tc.edit)
			if got := w.host.requests() - requests; got != noOpRequests+tc.extra {
				t.Errorf("no-op rerun made %d API requests, want %d", got, noOpRequests+tc.extra)
			}
			if after := w.counters(); after != before {
				t.Errorf("no-op rerun wrote: %+v -> %+v", before, after)
			}
		})
	}
}

// TestAppTokenReused: serve asks the App's token for each clone and fetch
// of a repository; one installation token serves them all while it is
// good, instead of an installation lookup and a new token every time.
func TestAppTokenReused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.installApp(t, true)
	app, err := gitops.NewApp(appID, pemOf(appKey()), 0)
	if err != nil {
		t.Fatal(err)
	}
	var toks []string
	requests := w.host.requests()
	for range 3 {
		tok, err := app.Token(w.ctx, w.gh.URL(), owner+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	if toks[0] != toks[1] || toks[1] != toks[2] {
		t.Error("each call got a token of its own")
	}
	// The installation lookup and one token.
	if n := w.host.requests() - requests; n != 2 {
		t.Errorf("%d API requests for three tokens, want 2", n)
	}
}
