package job

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// TestKeychainGitHubToken: without configuration, GITHUB_TOKEN is offered
// to ghcr.io, after the Docker config, and to no other host.
func TestKeychainGitHubToken(t *testing.T) {
	docker := t.TempDir()
	t.Setenv("DOCKER_CONFIG", docker)
	t.Setenv("GITHUB_TOKEN", "ghs_workflow_token")
	t.Setenv("GITHUB_ACTOR", "octocat")
	for host, want := range map[string]*authn.AuthConfig{
		"ghcr.io":                {Username: "octocat", Password: "ghs_workflow_token"},
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
