package adopt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// TestEnvName: the suggested passwordEnv is a valid environment variable
// and Actions secret name for every host.
func TestEnvName(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	for host, want := range map[string]string{
		"registry.acme.example": "REGISTRY_ACME_EXAMPLE_TOKEN",
		"10.0.0.5:5000":         "REGISTRY_10_0_0_5_TOKEN",
		"[::1]:5000":            "REGISTRY_1_TOKEN",
		"github.acme.example":   "REGISTRY_GITHUB_ACME_EXAMPLE_TOKEN",
		"3scale.example":        "REGISTRY_3SCALE_EXAMPLE_TOKEN",
		// A host spelt as a forge's variable never gets the forge's token.
		"gitlab:5000":      "REGISTRY_GITLAB_TOKEN",
		"bitbucket":        "REGISTRY_BITBUCKET_TOKEN",
		"bitbucket.server": "REGISTRY_BITBUCKET_SERVER_TOKEN",
		"azure.devops":     "REGISTRY_AZURE_DEVOPS_TOKEN",
	} {
		got := TokenEnv(host)
		if got != want || !valid.MatchString(got) {
			t.Errorf("TokenEnv(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestConfigMayName: a config may name IMAGEBOT_* and the registry's own
// TokenEnv, never another host's or the runner's token.
func TestConfigMayName(t *testing.T) {
	for _, tc := range []struct {
		name, host string
		want       bool
	}{
		{"IMAGEBOT_QUAY", "quay.io", true},
		{"REGISTRY_ACME_EXAMPLE_TOKEN", "registry.acme.example", true},
		{"REGISTRY_ACME_EXAMPLE_TOKEN", "registry.acme.example:5000", true},
		{"REGISTRY_ACME_EXAMPLE_TOKEN", "evil.example", false},
		{"QUAY_IO_TOKEN", "quay.io", true},
		{"GITHUB_TOKEN", "ghcr.io", false},
		{"AWS_SECRET_ACCESS_KEY", "registry.acme.example", false},
		{"imagebot_x", "quay.io", false},
		// The forges' and the runner's own variables, whatever the host
		// or the prefix.
		{"BITBUCKET_TOKEN", "bitbucket:5000", false},
		{"AZURE_DEVOPS_TOKEN", "azure.devops", false},
		{"SYSTEM_ACCESSTOKEN", "system.accesstoken", false},
		{"GITLAB_TOKEN", "gitlab", false},
		{"IMAGEBOT_APP_PRIVATE_KEY", "quay.io", false},
	} {
		if got := ConfigMayName(tc.name, tc.host); got != tc.want {
			t.Errorf("ConfigMayName(%q, %q) = %v, want %v", tc.name, tc.host, got, tc.want)
		}
	}
}

// TestInitNamesWhatTheRunAccepts: every passwordEnv the config stub and
// the workflow's env comment propose is one the run accepts for that
// host without an operator's leave, and the host that takes the runner's
// token gets neither a stub (on GitHub) nor a secret, but the permission.
func TestInitNamesWhatTheRunAccepts(t *testing.T) {
	hosts := []*host{{name: "ghcr.io", denied: true}, {name: "registry.acme.example:5000"}, {name: "10.0.0.5"}, {name: "quay.io", authed: true}}
	passwordEnv := regexp.MustCompile(`^\s+passwordEnv: (\S+)`)
	for _, onGitHub := range []bool{true, false} {
		var current string
		named := 0
		for _, line := range registryComment(hosts, onGitHub, ciWordsOf(OnGitHub)) {
			if h, _, ok := strings.Cut(strings.TrimSpace(line), ":   #"); ok {
				current = h
			}
			if m := passwordEnv.FindStringSubmatch(line); m != nil {
				named++
				if !ConfigMayName(m[1], current) {
					t.Errorf("onGitHub=%v: the stub for %s names %s, which the run refuses without --allow-env", onGitHub, current, m[1])
				}
				if onGitHub && RunnerToken(current) != "" {
					t.Errorf("the stub for %s names %s on GitHub, where it takes %s", current, m[1], RunnerToken(current))
				}
			}
		}
		if want := map[bool]int{true: 3, false: 4}[onGitHub]; named != want {
			t.Errorf("onGitHub=%v: %d passwordEnv stubs, want %d", onGitHub, named, want)
		}
	}
	wf, err := workflow("v1", "", hosts)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		secret := "${{ secrets." + TokenEnv(h.name) + " }}"
		if got, want := strings.Contains(string(wf), secret), RunnerToken(h.name) == ""; got != want {
			t.Errorf("workflow env names %s for %s: %v, want %v\n%s", secret, h.name, got, want, wf)
		}
	}
	if !strings.Contains(string(wf), "packages: read # list private ghcr.io packages with GITHUB_TOKEN") {
		t.Errorf("the workflow does not grant packages: read for ghcr.io:\n%s", wf)
	}
}

// TestKeychainRunnerToken: without configuration, GITHUB_TOKEN is offered
// to ghcr.io, after the Docker config, and to no other host.
func TestKeychainRunnerToken(t *testing.T) {
	docker := t.TempDir()
	t.Setenv("DOCKER_CONFIG", docker)
	t.Setenv("GITHUB_TOKEN", "ghs_workflow_token")
	t.Setenv("GITHUB_ACTOR", "octocat")
	for host, want := range map[string]*authn.AuthConfig{
		"ghcr.io":                {Username: "octocat", Password: "ghs_workflow_token"},
		"ghcr.io:443":            {Username: "octocat", Password: "ghs_workflow_token"},
		"docker.io":              {},
		"quay.io":                {},
		"ghcr.io.evil.example":   {},
		"registry.example.com":   {},
		"127.0.0.1:5000":         {},
		"docker.pkg.github.com2": {},
	} {
		if got := resolve(t, host); *got != *want {
			t.Errorf("%s: %+v, want %+v", host, *got, *want)
		}
		if got, want := RunnerToken(host) != "", want.Password != ""; got != want {
			t.Errorf("RunnerToken(%q) = %q, but the keychain offers it: %v", host, RunnerToken(host), want)
		}
	}

	// `docker login ghcr.io` (or docker/login-action) comes first.
	if err := os.WriteFile(filepath.Join(docker, "config.json"), []byte(`{"auths": {"ghcr.io": {"username": "me", "password": "pat"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := resolve(t, "ghcr.io"); got.Username != "me" || got.Password != "pat" {
		t.Errorf("ghcr.io with a Docker login: %+v, want the login's credentials", *got)
	}
}

func resolve(t *testing.T, host string) *authn.AuthConfig {
	t.Helper()
	reg, err := name.NewRegistry(host)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Keychain.Resolve(reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := a.Authorization()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
