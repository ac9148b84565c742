package job

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/registry"
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

// TestChartMirrorCredentials: a registries key with a path maps chart
// repository URLs to its mirror, and its credentials go to the mirror's
// host only, never to the repository's host or to a registry.
func TestChartMirrorCredentials(t *testing.T) {
	cfg, err := config.Parse(".imagebot.yaml", []byte(`registries:
  charts.bitnami.com/bitnami:
    mirror: https://artifactory.example.com/artifactory/api/helm/bitnami-remote
    username: bot
    passwordEnv: IMAGEBOT_ARTIFACTORY_TOKEN
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IMAGEBOT_ARTIFACTORY_TOKEN": "s3cret"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	creds, err := credentials(cfg, cfg.Mirrors(), Registry{LookupEnv: lookup}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]registry.Credentials{"artifactory.example.com": {Username: "bot", Password: "s3cret", Env: "IMAGEBOT_ARTIFACTORY_TOKEN"}}
	if diff := cmp.Diff(want, creds); diff != "" {
		t.Errorf("credentials (-want +got):\n%s", diff)
	}
	if len(cfg.Mirrors()) != 0 {
		t.Errorf("registry mirrors %v, want none: a chart repository prefix is no registry", cfg.Mirrors())
	}
	if got := configHosts(cfg); len(got) != 1 || got[0] != "charts.bitnami.com" {
		t.Errorf("configHosts = %v, want [charts.bitnami.com]", got)
	}
}
