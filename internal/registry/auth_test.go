package registry_test

import (
	"bytes"
	"encoding/base64"
	"log/slog"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// TestCredentialsStayWithTheirHost sends lookups to three registries at
// once and checks every request each of them received.
func TestCredentialsStayWithTheirHost(t *testing.T) {
	a := registrytest.NewServer(t, registrytest.WithBasicAuth("alice", "a-secret"))
	b := registrytest.NewServer(t, registrytest.WithBasicAuth("bob", "b-secret"))
	open := registrytest.NewServer(t)
	for _, srv := range []*registrytest.Server{a, b, open} {
		pushTags(t, srv, "acme/api", "v1.0.0")
	}
	c := newClient(
		registry.WithMirrors(map[string]string{"ghcr.io": a.URL(), "quay.io": b.URL(), "docker.io": open.URL()}),
		registry.WithCredentials(map[string]registry.Credentials{
			a.Host():  {Username: "alice", Password: "a-secret"},
			b.Host():  {Username: "bob", Password: "b-secret"},
			"ghcr.io": {Username: "mallory", Password: "for-ghcr-itself"}, // not contacted: mirrored
		}),
	)
	for _, repo := range []string{"ghcr.io/acme/api", "quay.io/acme/api", "docker.io/acme/api"} {
		if _, err := c.Tags(t.Context(), registrytest.Repo(t, repo)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Digest(t.Context(), registrytest.Tag(t, repo, "v1.0.0")); err != nil {
			t.Fatal(err)
		}
	}

	wantAuth := map[*registrytest.Server]string{a: basic("alice", "a-secret"), b: basic("bob", "b-secret"), open: ""}
	for srv, want := range wantAuth {
		if len(srv.Requests()) == 0 {
			t.Errorf("%s received no requests", srv.Host())
		}
		for _, r := range srv.Requests() {
			got := r.Header.Get("Authorization")
			if got != want && (got != "" || r.Path != "/v2/") { // the ping goes out before the challenge
				t.Errorf("%s %s %s carried Authorization %q, want %q", srv.Host(), r.Method, r.Path, got, want)
			}
		}
	}
}

func TestCredentialsNeverInErrorsOrLogs(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithBasicAuth("alice", "a-secret"))
	pushTags(t, srv, "acme/api", "v1.0.0")
	var logs bytes.Buffer
	c := newClient(viaMirror(srv),
		registry.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		registry.WithCredentials(map[string]registry.Credentials{srv.Host(): {Username: "alice", Password: "hunter2"}}),
	)
	_, err := c.Tags(t.Context(), registrytest.Repo(t, "ghcr.io/acme/api"))
	if err == nil {
		t.Fatal("Tags with a wrong password succeeded")
	}
	for what, text := range map[string]string{"error": err.Error(), "log": logs.String()} {
		if strings.Contains(text, "hunter2") || strings.Contains(text, basic("alice", "hunter2")[6:]) {
			t.Errorf("%s shows the password: %s", what, text)
		}
	}
	if n := srv.Count("GET", "/tags/list"); n != 1 {
		t.Errorf("tags/list requests = %d, want 1: 401 is not retried", n)
	}
}
