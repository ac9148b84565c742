package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestServeSharesTrustRoot: the repositories of a serve run share one
// Sigstore trust root, fetched once per run however many repositories
// have keyless policies, and with --cache DIR it is kept in DIR/sigstore as
// for run.
func TestServeSharesTrustRoot(t *testing.T) {
	const repos = 3
	k := newKeylessRepo(t)
	gs, err := gittest.New(t.TempDir(), runToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	gh := githubtest.New(githubtest.WithToken(runToken))
	t.Cleanup(gh.Close)
	content := map[string][]byte{}
	for _, name := range []string{".imagebot.yaml", "app.yaml"} {
		b, err := os.ReadFile(filepath.Join(k.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		content[name] = b
	}
	args := []string{"--once", "--parallel", "3", "--workdir", t.TempDir(), "--mirror", "ghcr.io=" + k.reg.URL()}
	for r := range repos {
		name := fmt.Sprintf("svc%d", r)
		if _, err := gs.CreateRepo("acme", name, content, "main"); err != nil {
			t.Fatal(err)
		}
		gh.AddRepo("acme", name, "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/"+name)))
		args = append(args, "--clone", gs.URL("acme/"+name))
	}
	tuf := signature.TUF{URL: k.tuf.URL(), Root: k.tuf.Root()}
	serve := func(extra ...string) {
		t.Helper()
		o, err := parseServe(append(append([]string{}, args...), extra...), environ{GitHubToken: runToken, GitHubAPIURL: gh.URL(), GitHubServerURL: serverURL(gs)})
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		o.IO = iostreams{Out: &out, ErrOut: &errb}
		o.Cache.sigstore = tuf
		if err := runServe(t.Context(), o); err != nil {
			t.Fatalf("serve: %v\n%s", err, errb.String())
		}
	}

	// What one fetch of the trust root costs, without a disk cache.
	before := k.tuf.Requests()
	if _, err := signature.TrustedRoot(t.Context(), tuf, ""); err != nil {
		t.Fatal(err)
	}
	one := k.tuf.Requests() - before

	// Without a usable user cache directory (the release image's read-only
	// root filesystem), only sharing keeps the run to one fetch.
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, "")
	t.Setenv("XDG_CACHE_HOME", file)
	before = k.tuf.Requests()
	serve()
	if got := k.tuf.Requests() - before; got != one {
		t.Errorf("a run over %d repositories sent %d TUF requests, want %d: one fetch of the trust root", repos, got, one)
	}
	for r := range repos {
		prs := gh.PRs("acme", fmt.Sprintf("svc%d", r))
		if len(prs) != 1 || prs[0].State != "open" || !strings.Contains(prs[0].Title, "1.1.0") {
			t.Fatalf("svc%d: pull requests %+v, want one open for the signed 1.1.0", r, prs)
		}
	}

	cacheDir := filepath.Join(t.TempDir(), "cache")
	serve("--cache", cacheDir)
	if n := countFiles(t, filepath.Join(cacheDir, trustDir)); n == 0 {
		t.Errorf("serve --cache %s kept no trust root in it", cacheDir)
	}
}
