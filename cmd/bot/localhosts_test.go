package main

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestPlanLocalRegistryFromManifest: a registry on this machine named only
// in a manifest is not contacted (the plan says so, naming the cure); once
// the config names it, it is looked up.
func TestPlanLocalRegistryFromManifest(t *testing.T) {
	srv := registrytest.NewServer(t)
	srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "old", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), nil))
	srv.Push(t, "acme/api", "1.1.0", registrytest.Image(t, "new", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: "+srv.Host()+"/acme/api:1.0.0\n")

	stdout, stderr, code := imagebot(t, environ{}, "plan", repo)
	if code == exitOK || !strings.Contains(stdout+stderr, "registry "+srv.Host()+" is on this machine or its private network and is named only in a manifest, so it was not contacted") {
		t.Errorf("status %d, want the lookup refused\n%s%s", code, stdout, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the registry received %d requests", n)
	}

	writeFile(t, filepath.Join(repo, ".imagebot.yaml"), "registries:\n  \""+srv.Host()+"\": {}\n")
	stdout, stderr, code = imagebot(t, environ{}, "plan", repo)
	if code != exitOK || !strings.Contains(stdout, "1.0.0  1.1.0") {
		t.Errorf("named in the config: status %d\n%s%s", code, stdout, stderr)
	}
}

// TestMirrorGetsOnlyItsOwnCredentials: the Docker config's login for
// Docker Hub never goes to a mirror of docker.io; the mirror gets what is
// configured for the mirror's own host.
func TestMirrorGetsOnlyItsOwnCredentials(t *testing.T) {
	srv := registrytest.NewServer(t)
	srv.Push(t, "docker.io/library/nginx", "1.26.1", registrytest.Image(t, "nginx", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	docker := t.TempDir()
	t.Setenv("DOCKER_CONFIG", docker)
	hub := base64.StdEncoding.EncodeToString([]byte("hubuser:Hub5ecret"))
	writeFile(t, filepath.Join(docker, "config.json"), `{"auths": {"https://index.docker.io/v1/": {"auth": "`+hub+`"}, "docker.io": {"auth": "`+hub+`"}}}`)
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: nginx:1.25.3\n")
	stdout, stderr, _ := imagebot(t, environ{}, "plan", repo, "--mirror", "docker.io="+srv.URL()+"/docker.io")
	if len(srv.Requests()) == 0 {
		t.Fatalf("the mirror received nothing\n%s%s", stdout, stderr)
	}
	for _, r := range srv.Requests() {
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("%s %s carried %q to the mirror", r.Method, r.Path, a)
		}
	}
}

// TestFlagMirrorGetsNotTheRegistrysCredentials: credentials the config
// gives Docker Hub do not go to a mirror that --mirror put in front of it.
func TestFlagMirrorGetsNotTheRegistrysCredentials(t *testing.T) {
	srv := registrytest.NewServer(t)
	srv.Push(t, "docker.io/library/nginx", "1.26.1", registrytest.Image(t, "nginx", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: nginx:1.25.3\n")
	writeFile(t, filepath.Join(repo, ".imagebot.yaml"), "registries:\n  docker.io:\n    username: hubuser\n    passwordEnv: IMAGEBOT_HUB_TOKEN\n")
	env := readEnviron(func(k string) (string, bool) {
		if k == "IMAGEBOT_HUB_TOKEN" {
			return "Hub5ecret", true
		}
		return "", false
	})
	stdout, stderr, _ := imagebot(t, env, "plan", repo, "--mirror", "docker.io="+srv.URL()+"/docker.io")
	if len(srv.Requests()) == 0 {
		t.Fatalf("the mirror received nothing\n%s%s", stdout, stderr)
	}
	for _, r := range srv.Requests() {
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("%s %s carried %q to the mirror", r.Method, r.Path, a)
		}
	}
	if !strings.Contains(stderr, "its credentials are not sent there") {
		t.Errorf("nothing said about the credentials left out\n%s", stderr)
	}
}
