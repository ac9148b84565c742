package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/imagebot/imagebot/internal/registry/registrytest"
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
	writeFile(t, filepath.Join(docker, "config.json"), `{"auths": {"ghcr.io": {"username": "me", "password": "pat"}}}`)
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
	a, err := keychain.Resolve(reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := a.Authorization()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDockerCredentialHelper: a registry that wants credentials gets them
// from the credential helper the Docker config names for it (as
// docker-credential-ecr-login, -gcloud or -acr-env do for cloud
// registries), with nothing in .imagebot.yaml; without the helper, the
// lookup fails with the registry's 401.
func TestDockerCredentialHelper(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithBasicAuth("AWS", "helper-secret"))
	srv.Push(t, "docker.io/library/nginx", "1.26.1", registrytest.Image(t, "nginx", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	srv.Push(t, "docker.io/library/nginx", "1.25.3", registrytest.Image(t, "nginx-old", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), nil))
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: nginx:1.25.3\n")
	args := []string{"plan", repo, "--mirror", "docker.io=" + srv.URL() + "/docker.io"}

	docker, bin := t.TempDir(), t.TempDir()
	t.Setenv("DOCKER_CONFIG", docker)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, _, code := imagebot(t, environ{}, args...)
	if code != exitPartial {
		t.Fatalf("without credentials: status %d, want 2 (the registry wants them)", code)
	}

	// The helper protocol: the server URL on stdin, JSON on stdout.
	writeFile(t, filepath.Join(docker, "config.json"), `{"credHelpers": {"`+srv.Host()+`": "imagebot-test"}}`)
	helper := filepath.Join(bin, "docker-credential-imagebot-test")
	writeFile(t, helper, "#!/bin/sh\ncat >/dev/null\necho '{\"Username\": \"AWS\", \"Secret\": \"helper-secret\"}'\n")
	if err := os.Chmod(helper, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := imagebot(t, environ{}, args...)
	if code != exitOK || !strings.Contains(stdout, "1.25.3  1.26.1") {
		t.Errorf("with the helper: status %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "helper-secret") {
		t.Error("the helper's secret was printed")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
