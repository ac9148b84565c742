package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

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
