package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestRefusedCredentials: a registry that refuses the password the config
// names gets a hint naming that variable, in the text and the JSON,
// rather than the hint for no credentials at all ("wants credentials:
// docker login"), which stays for a variable that is not set.
func TestRefusedCredentials(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithBasicAuth("alice", "right-secret"))
	srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "api", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: "+srv.Host()+"/acme/api:1.0.0\n")
	writeFile(t, filepath.Join(repo, ".imagebot.yaml"), "registries:\n  "+srv.Host()+":\n    username: alice\n    passwordEnv: IMAGEBOT_REG_TOKEN\n")
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	withToken := func(v string) environ {
		return environ{Lookup: func(k string) (string, bool) { return v, k == "IMAGEBOT_REG_TOKEN" && v != "" }}
	}

	stdout, stderr, code := imagebot(t, withToken("wrong-secret"), "plan", repo)
	wantHint := "hint: " + srv.Host() + " refused the credentials from IMAGEBOT_REG_TOKEN (user alice): check that IMAGEBOT_REG_TOKEN holds a valid, unexpired password or token"
	if code != exitPartial || !strings.Contains(stdout, wantHint) || strings.Contains(stdout, "wants credentials") {
		t.Errorf("wrong password: status %d, want 2 and the hint %q, not the one for no credentials:\n%s%s", code, wantHint, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "wrong-secret") {
		t.Error("the password was printed")
	}
	stdout, _, _ = imagebot(t, withToken("wrong-secret"), "plan", repo, "-o", "json")
	if !strings.Contains(stdout, "(the registry refused the credentials from IMAGEBOT_REG_TOKEN for user alice)") {
		t.Errorf("JSON problem does not name the variable:\n%s", stdout)
	}

	stdout, stderr, _ = imagebot(t, withToken(""), "plan", repo)
	if !strings.Contains(stdout, "wants credentials") || strings.Contains(stdout, "refused the credentials") {
		t.Errorf("variable unset: want the hint for no credentials:\n%s%s", stdout, stderr)
	}

	stdout, stderr, code = imagebot(t, withToken("right-secret"), "plan", repo)
	if code != exitOK {
		t.Errorf("right password: status %d\n%s%s", code, stdout, stderr)
	}
}
