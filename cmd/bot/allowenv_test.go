package main

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestPasswordEnvAllowed: a repository's config sends a variable to a
// registry only when it may name it: IMAGEBOT_*, the registry host's own
// TOKEN variable, or what the operator allows (--allow-env,
// IMAGEBOT_ALLOW_ENV). The forge's credentials never. A refused variable
// fails the run before any request; the registry, which records every
// Authorization header, never sees the secret.
func TestPasswordEnvAllowed(t *testing.T) {
	const secret = "0therTeam5ecret"
	srv := registrytest.NewServer(t, registrytest.WithBasicAuth("bot", secret))
	srv.Push(t, "docker.io/library/nginx", "1.26.1", registrytest.Image(t, "nginx", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), nil))
	srv.Push(t, "docker.io/library/nginx", "1.25.3", registrytest.Image(t, "nginx-old", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), nil))
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	vars := map[string]string{"OTHER_TEAM_TOKEN": secret, "IMAGEBOT_HUB_TOKEN": secret, "DOCKER_IO_TOKEN": secret, "GITHUB_TOKEN": secret}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }

	for _, tc := range []struct {
		name, variable, allowEnv string
		flags                    []string
		want                     string // in stderr when refused
	}{
		{"not allowed", "OTHER_TEAM_TOKEN", "", nil, ".imagebot.yaml:6: registries.docker.io.passwordEnv: the config may not name OTHER_TEAM_TOKEN"},
		{"forge token", "GITHUB_TOKEN", "", []string{"--allow-env", "*"}, `.imagebot.yaml:6:18: "passwordEnv" GITHUB_TOKEN is the forge's own credential`},
		{"IMAGEBOT_ prefix", "IMAGEBOT_HUB_TOKEN", "", nil, ""},
		{"the host's own variable", "DOCKER_IO_TOKEN", "", nil, ""},
		{"--allow-env", "OTHER_TEAM_TOKEN", "", []string{"--allow-env", "OTHER_TEAM_TOKEN"}, ""},
		{"IMAGEBOT_ALLOW_ENV pattern", "OTHER_TEAM_TOKEN", "REGISTRY_*, OTHER_*", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			repo := t.TempDir()
			writeFile(t, filepath.Join(repo, "pod.yaml"), "kind: Pod\nspec:\n  containers:\n    - image: nginx:1.25.3\n")
			writeFile(t, filepath.Join(repo, ".imagebot.yaml"), "registries:\n  docker.io:\n    mirror: "+srv.URL()+"/docker.io\n"+
				"    username: bot\n    # the registry's token\n    passwordEnv: "+tc.variable+"\n")
			env := readEnviron(func(k string) (string, bool) {
				if k == "IMAGEBOT_ALLOW_ENV" {
					return tc.allowEnv, tc.allowEnv != ""
				}
				return lookup(k)
			})
			stdout, stderr, code := imagebot(t, env, append([]string{"plan", repo}, tc.flags...)...)
			if strings.Contains(stdout+stderr, secret) {
				t.Error("the secret was printed")
			}
			if tc.want != "" {
				if code != exitUsage || !strings.Contains(stderr, tc.want) {
					t.Errorf("status %d, stderr %q; want 1 and %q", code, stderr, tc.want)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("the registry received %d requests", n)
				}
				return
			}
			if code != exitOK || !strings.Contains(stdout, "1.25.3  1.26.1") {
				t.Fatalf("status %d\n%s%s", code, stdout, stderr)
			}
			basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("bot:"+secret))
			sent := false
			for _, r := range srv.Requests() {
				sent = sent || r.Header.Get("Authorization") == basic
			}
			if !sent {
				t.Error("the allowed credentials never reached the registry")
			}
		})
	}
}
