package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

var appKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func appPEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey())}))
}

// TestGitHubAuthEnv: the App's variables are read whole or refused with
// what is missing; the token alone is the token.
func TestGitHubAuthEnv(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, []byte(appPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		app  string // the App as printed; "" for none
		err  string // a part of the error; "" for none
	}{
		{"token only", map[string]string{"GITHUB_TOKEN": "t"}, "", ""},
		{"nothing", nil, "", ""},
		{"App by key", map[string]string{envAppID: "123", envAppKey: appPEM()}, "GitHub App 123", ""},
		{"App by key file, and a token", map[string]string{envAppID: " 123 ", envAppKeyFile: keyFile, "GITHUB_TOKEN": "t"}, "GitHub App 123", ""},
		{"installation", map[string]string{envAppID: "123", envAppKey: appPEM(), envAppInstallation: "77"}, "GitHub App 123", ""},
		{"no key", map[string]string{envAppID: "123"}, "", "IMAGEBOT_APP_ID is set, but neither IMAGEBOT_APP_PRIVATE_KEY"},
		{"no id", map[string]string{envAppKey: appPEM(), "GITHUB_TOKEN": "t"}, "", "IMAGEBOT_APP_ID is not set"},
		{"two keys", map[string]string{envAppID: "123", envAppKey: appPEM(), envAppKeyFile: keyFile}, "", "keep one"},
		{"client ID", map[string]string{envAppID: "Iv1.0123abcd", envAppKey: appPEM()}, "", `IMAGEBOT_APP_ID "Iv1.0123abcd": want the App's numeric App ID`},
		{"bad installation", map[string]string{envAppID: "123", envAppKey: appPEM(), envAppInstallation: "acme"}, "", `IMAGEBOT_APP_INSTALLATION_ID "acme"`},
		{"not a key", map[string]string{envAppID: "123", envAppKey: "hunter2"}, "", "IMAGEBOT_APP_PRIVATE_KEY: GitHub App 123: private key"},
		{"missing key file", map[string]string{envAppID: "123", envAppKeyFile: keyFile + ".gone"}, "", "IMAGEBOT_APP_PRIVATE_KEY_FILE: open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token, app, err := githubAuth(func(k string) string { return tc.env[k] })
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "PRIVATE KEY--") {
					t.Errorf("the key is in the error: %v", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if token != tc.env["GITHUB_TOKEN"] {
				t.Errorf("token %q", token)
			}
			if got := ""; app != nil {
				got = app.String()
				if got != tc.app {
					t.Errorf("app %q, want %q", got, tc.app)
				}
			} else if tc.app != "" {
				t.Errorf("no App, want %s", tc.app)
			}
		})
	}
}

// installApp installs the App acme-imagebot (ID 987) on acme/gitops, lets
// the git remote accept only the fake's valid tokens, and returns the file
// of the App's private key.
func (e *runEnv) installApp(t *testing.T) string {
	t.Helper()
	e.gh.AddApp(githubtest.App{ID: 987, Slug: "acme-imagebot", Key: &appKey().PublicKey})
	e.gh.Install(987, "acme/gitops")
	e.gs.CheckTokens(e.gh.ValidToken)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, []byte(appPEM()), 0o600); err != nil {
		t.Fatal(err)
	}
	return keyFile
}

// TestRunAsGitHubApp: `run` with the App's variables and no GITHUB_TOKEN
// opens its PRs as the App's bot, over installation tokens; with
// git.signedCommits: api it pushes nothing, and GitHub signs the commits.
func TestRunAsGitHubApp(t *testing.T) {
	e := newRunEnv(t)
	keyFile := e.installApp(t)
	e.env.GitHubToken = ""
	e.env.App = map[string]string{envAppID: "987", envAppKeyFile: keyFile}
	cfg := filepath.Join(t.TempDir(), "imagebot.yaml")
	if err := os.WriteFile(cfg, []byte("git:\n  signedCommits: api\npolicies:\n  - match: docker.io/library/postgres\n    skip: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := e.run(t, "--config", cfg)
	if code != exitOK {
		t.Fatalf("status %d\n%s%s", code, stdout, stderr)
	}
	open := e.open()
	if len(open) != 2 {
		t.Fatalf("open PRs %v, want nginx's and redis's", open)
	}
	for _, pr := range open {
		if pr.Author != "acme-imagebot[bot]" {
			t.Errorf("#%d opened by %s", pr.Number, pr.Author)
		}
	}
	if n := e.gs.Pushes(); n != 0 {
		t.Errorf("%d pushes with signedCommits: api", n)
	}
	for _, tok := range e.gh.InstallationTokens() {
		if strings.Contains(stdout+stderr, tok) {
			t.Errorf("an installation token was printed")
		}
	}

	// A half-configured App is a usage error, not a run with the token.
	e.env.App[envAppKeyFile] = ""
	e.env.GitHubToken = runToken
	_, stderr, code = e.run(t)
	if code != exitUsage || !strings.Contains(stderr, "IMAGEBOT_APP_ID is set, but neither") {
		t.Errorf("App without a key: status %d, %s", code, stderr)
	}
}

// TestServeCloneAsGitHubApp: serve --clone with a GitHub App and no
// GITHUB_TOKEN clones and fetches with the App's installation token (the
// git remote accepts only the fake's valid tokens), then opens the pull
// requests as the App.
func TestServeCloneAsGitHubApp(t *testing.T) {
	e := newRunEnv(t)
	keyFile := e.installApp(t)
	env := e.env
	env.GitHubToken, env.GitHubRepository = "", ""
	env.App = map[string]string{envAppID: "987", envAppKeyFile: keyFile}
	args := []string{"serve", "--once", "--clone", e.gs.URL("acme/gitops"), "--workdir", t.TempDir()}
	args = append(args, e.args[2:]...) // the --mirror flags of run
	stdout, stderr, code := imagebot(t, env, args...)
	if code != exitOK {
		t.Fatalf("status %d\n%s%s", code, stdout, stderr)
	}
	open := e.open()
	if len(open) == 0 {
		t.Fatal("no pull request opened")
	}
	for _, pr := range open {
		if pr.Author != "acme-imagebot[bot]" {
			t.Errorf("#%d opened by %s, want the App", pr.Number, pr.Author)
		}
	}
	for _, tok := range e.gh.InstallationTokens() {
		if strings.Contains(stdout+stderr, tok) {
			t.Error("an installation token was printed")
		}
	}
}
