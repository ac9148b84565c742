package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
)

// otherHost is a second local server, the "other host" a remote may point
// to: it records every request and whether it carried credentials.
type otherHost struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  int
	auths []string
}

func newOtherHost(t *testing.T) *otherHost {
	o := &otherHost{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.reqs++
		if a := r.Header.Get("Authorization"); a != "" {
			o.auths = append(o.auths, a)
		}
		o.mu.Unlock()
		// Asks for credentials, as a git server does.
		w.Header().Set("WWW-Authenticate", `Basic realm="other"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(o.Close)
	return o
}

func (o *otherHost) seen() (reqs int, auths []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reqs, append([]string(nil), o.auths...)
}

// setOrigin points a clone's origin to url.
func setOrigin(t *testing.T, clone, url string) {
	t.Helper()
	r, err := git.PlainOpen(clone)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteRemote("origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		t.Fatal(err)
	}
}

// TestTokenStaysOnForgeHost: with origin on another host than
// GITHUB_SERVER_URL's, run, rollback and serve refuse (exit 1) naming both
// hosts, and the other host receives nothing, credentials least of all;
// neither does the GitHub API.
func TestTokenStaysOnForgeHost(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	other := newOtherHost(t)
	server := strings.TrimPrefix(serverURL(e.gs), "http://")
	otherURL := other.URL + "/acme/gitops.git"
	for _, tc := range []struct {
		name, origin, host string
		args               []string
	}{
		{"run, http origin", otherURL, strings.TrimPrefix(other.URL, "http://"), e.args},
		{"rollback, http origin", otherURL, strings.TrimPrefix(other.URL, "http://"), []string{"rollback", "nginx", "--repo", e.clone}},
		{"run, ssh origin", "git@gitlab.com:acme/gitops.git", "gitlab.com", e.args},
		{"serve --once", otherURL, strings.TrimPrefix(other.URL, "http://"), []string{"serve", "--once", "--repo", e.clone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setOrigin(t, e.clone, tc.origin)
			before := len(e.gh.PRs("acme", "gitops"))
			stdout, stderr, code := imagebot(t, e.env, tc.args...)
			if code != exitUsage {
				t.Fatalf("status %d, want 1\n%s%s", code, stdout, stderr)
			}
			for _, want := range []string{"is on " + tc.host, "not on the GitHub server " + server, "GITHUB_SERVER_URL"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q, want %q", stderr, want)
				}
			}
			if strings.Contains(stdout+stderr, runToken) {
				t.Error("the token was printed")
			}
			if n := len(e.gh.PRs("acme", "gitops")); n != before {
				t.Errorf("%d PRs after the refusal, want %d", n, before)
			}
		})
	}
	if reqs, auths := other.seen(); reqs != 0 || len(auths) != 0 {
		t.Errorf("the other host received %d requests, %d with credentials (%q)", reqs, len(auths), auths)
	}

	// serve --clone checks each URL before cloning anything.
	stdout, stderr, code := imagebot(t, e.env, "serve", "--once", "--workdir", t.TempDir(), "--clone", otherURL, "--schedule", "@hourly")
	if code != exitUsage || !strings.Contains(stderr, "--clone: the git remote "+otherURL+" is on") {
		t.Errorf("serve --clone OTHER: status %d\n%s%s", code, stdout, stderr)
	}
	if reqs, _ := other.seen(); reqs != 0 {
		t.Errorf("serve --clone sent %d requests to the other host", reqs)
	}

	// Back on the forge's host, the same run works.
	setOrigin(t, e.clone, e.gs.URL("acme/gitops"))
	if stdout, stderr, code := imagebot(t, e.env, e.args...); code != exitOK {
		t.Errorf("origin on the forge: status %d\n%s%s", code, stdout, stderr)
	}
}

// TestTokenNeverWritten: a run at debug level, with a distinctive token,
// writes the token nowhere: not on stdout or stderr, not in the clone's
// .git/config, not in a PR's body.
func TestTokenNeverWritten(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t)
	stdout, stderr, code := e.run(t, "--log-level", "debug")
	if code != exitOK {
		t.Fatalf("status %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "level=DEBUG") {
		t.Errorf("no debug lines: the test would not see a token logged at debug level\n%s", stderr)
	}
	gitConfig, err := os.ReadFile(filepath.Join(e.clone, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{"stdout": stdout, "stderr": stderr, ".git/config": string(gitConfig)}
	prs := e.gh.PRs("acme", "gitops")
	if len(prs) == 0 {
		t.Fatal("no PRs: nothing to check")
	}
	for _, pr := range prs {
		where["PR "+pr.Head] = pr.Title + "\n" + pr.Body + "\n" + strings.Join(pr.Comments, "\n")
	}
	for name, text := range where {
		if strings.Contains(text, runToken) {
			t.Errorf("the token is in %s", name)
		}
	}
}
