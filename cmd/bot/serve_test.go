package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeUsageErrors: every mistake on serve's command line fails at
// start-up with status 1, naming what to change, before any clone or run.
func TestServeUsageErrors(t *testing.T) {
	repo := t.TempDir() // no config, so no schedule: in it
	token := environ{GitHubToken: "t0ken"}
	for _, tc := range []struct {
		env  environ
		args []string
		want string
	}{
		{token, []string{"--repo", repo}, "no schedule: pass --schedule or set schedule: in .imagebot.yaml"},
		{token, []string{"--repo", repo, "--schedule", "0 6 * *"}, `--schedule "0 6 * *": `},
		{token, []string{"--repo", repo, "--schedule", "0 0 30 2 *"}, "never fires"},
		// The schedule is checked even when --once does not use it.
		{token, []string{"--repo", repo, "--once", "--schedule", "every day"}, `--schedule "every day": `},
		{token, []string{"--clone", "https://github.com/a/b"}, "no schedule: pass --schedule"},
		{token, []string{"--clone", "https://github.com/a/b", "--config", "ci/imagebot.yaml"}, "a relative --config, are read only after cloning"},
		{token, []string{"--clone", "https://github.com/a/b", "--repo", repo, "--schedule", "@hourly"}, "DIR (--repo) and --clone: give one"},
		{token, []string{"--repo", repo, "--shard", "0/2", "--schedule", "@hourly"}, "it needs --clone"},
		{token, []string{"--clone", "https://github.com/a/b", "--shard", "auto/4", "--once"}, `--shard "auto/4": JOB_COMPLETION_INDEX is not set`},
		{token, []string{"--schedule", "@hourly", repo, "extra"}, `unexpected argument "extra"`},
		{token, []string{"--clone", "https://github.com/a/b", repo, "--schedule", "@hourly"}, "DIR (--repo) and --clone: give one"},
		{token, []string{"--gitlab-group", "acme", repo, "--schedule", "@hourly"}, "DIR (--repo) and --gitlab-group: give one"},
		{token, []string{"--gitlab-group", "acme", "--forge", "gitea", "--schedule", "@hourly"}, "--gitlab-group lists GitLab projects, and --forge gitea names another host"},
		{token, []string{"--bogus"}, "unknown flag: --bogus"},
		// Push hooks: a secret that is not there, an issuer without claims.
		{environ{GitHubToken: "t0ken", Lookup: func(string) (string, bool) { return "", false }}, []string{"--repo", repo, "--schedule", "@hourly", "--hook-secret-env", "HOOK_SECRET"}, "--hook-secret-env HOOK_SECRET: the variable is not set or empty"},
		{token, []string{"--repo", repo, "--schedule", "@hourly", "--hook-oidc", "https://token.actions.githubusercontent.com=imagebot"}, "hooks.oidc in --config names no claims for this issuer"},
		{token, []string{"--repo", repo, "--schedule", "@hourly", "--hook-oidc", "token.actions.githubusercontent.com"}, "want ISSUER=AUDIENCE"},
		{token, []string{"--repo", repo, "--once", "--hook-secret-env", "HOOK_SECRET"}, "which --once does not serve"},
		{environ{}, []string{"--repo", repo, "--schedule", "@hourly"}, "GITHUB_TOKEN is not set: serve needs a token"},
		{environ{App: map[string]string{envAppID: "12"}}, []string{"--repo", repo, "--schedule", "@hourly"}, "IMAGEBOT_APP_ID is set, but neither"},
	} {
		stdout, stderr, code := imagebot(t, tc.env, append([]string{"serve"}, tc.args...)...)
		if code != exitUsage {
			t.Errorf("serve %q = %d, want 1", tc.args, code)
		}
		if !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("serve %q: stderr %q, stdout %q; want %q on stderr only", tc.args, stderr, stdout, tc.want)
		}
	}
}

// TestServeConfigInRepository: a relative --config is a path in the
// repository, as for plan and run, whatever the working directory.
func TestServeConfigInRepository(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "ci"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "ci", "imagebot.yaml"), []byte("schedule: \"@every 6h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseServe([]string{"--repo", repo, "--config", "ci/imagebot.yaml"}, environ{GitHubToken: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newServer(context.Background(), o); err != nil {
		t.Errorf("serve --repo %s --config ci/imagebot.yaml: %v", repo, err)
	}
	// A GitHub App instead of the token will do.
	o.Env = environ{App: map[string]string{envAppID: "12", envAppKey: appPEM()}}
	if _, err := newServer(context.Background(), o); err != nil {
		t.Errorf("serve with a GitHub App and no GITHUB_TOKEN: %v", err)
	}
}
