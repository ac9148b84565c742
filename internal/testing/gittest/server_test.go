package gittest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-cmp/cmp"
)

const token = "ghs_test_token"

var auth = &githttp.BasicAuth{Username: "x-access-token", Password: token}

// backends are the two ways a Server answers: every test runs on both, so
// that the in-process server is held to what git http-backend does.
var backends = []struct {
	name string
	new  func(dir, token string) (*Server, error)
}{
	{"in process", newInProcessServer},
	{"http-backend", NewHTTPBackend},
}

// eachBackend runs test once per backend.
func eachBackend(t *testing.T, test func(t *testing.T, newServer func(*testing.T) *Server)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			test(t, func(t *testing.T) *Server { return newTestServer(t, b.new) })
		})
	}
}

func newTestServer(t *testing.T, newFn func(dir, token string) (*Server, error)) *Server {
	t.Helper()
	s, err := newFn(TempDir(t), token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := s.CreateRepo("acme", "apps", map[string][]byte{
		"apps/web/deployment.yaml": []byte("image: nginx:1.25.3\n"),
		"README.md":                []byte("demo\n"),
	}, "main"); err != nil {
		t.Fatal(err)
	}
	return s
}

func clone(t *testing.T, s *Server) *git.Repository {
	t.Helper()
	repo, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: s.URL("acme/apps"), Auth: auth})
	if err != nil {
		t.Fatalf("clone: %v", err)
	}
	return repo
}

// commit writes one file in the clone's work tree and commits it.
func commit(t *testing.T, repo *git.Repository, name, content string) plumbing.Hash {
	t.Helper()
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt.Filesystem.Root(), name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(name); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "imagebot", Email: "bot@example.invalid", When: time.Now()}
	h, err := wt.Commit("update "+name, &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func push(repo *git.Repository, a transport.AuthMethod, spec string) error {
	return repo.Push(&git.PushOptions{Auth: a, RefSpecs: []config.RefSpec{config.RefSpec(spec)}})
}

// branchSHA reads a branch straight from the bare repository.
func branchSHA(t *testing.T, s *Server, branch string) string {
	t.Helper()
	bare, err := git.PlainOpen(s.Dir("acme", "apps"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := bare.Reference(plumbing.NewBranchReferenceName(branch), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return ref.Hash().String()
}

func TestCloneCommitPush(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		repo := clone(t, s)
		head, err := repo.Head()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("refs/heads/main", head.Name().String()); diff != "" {
			t.Errorf("default branch (-want +got):\n%s", diff)
		}
		h := commit(t, repo, "README.md", "changed\n")
		if err := push(repo, auth, "refs/heads/main:refs/heads/imagebot/nginx"); err != nil {
			t.Fatalf("push: %v", err)
		}
		if got := branchSHA(t, s, "imagebot/nginx"); got != h.String() {
			t.Errorf("bare repo imagebot/nginx = %q, want %s", got, h)
		}
		if got := branchSHA(t, s, "main"); got != head.Hash().String() {
			t.Errorf("main moved to %s", got)
		}
		if got := s.Pushes(); got != 1 {
			t.Errorf("Pushes() = %d, want 1", got)
		}
		// Nothing new to send: go-git does not POST, so no push is counted.
		if err := push(repo, auth, "refs/heads/main:refs/heads/imagebot/nginx"); !errors.Is(err, git.NoErrAlreadyUpToDate) {
			t.Errorf("second push: %v, want NoErrAlreadyUpToDate", err)
		}
		if got := s.Pushes(); got != 1 {
			t.Errorf("Pushes() after no-op push = %d, want 1", got)
		}
	})
}

func TestNonFastForwardRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		a, b := clone(t, s), clone(t, s)
		commit(t, a, "README.md", "a\n")
		if err := push(a, auth, "refs/heads/main:refs/heads/main"); err != nil {
			t.Fatal(err)
		}
		commit(t, b, "README.md", "b\n")
		if err := push(b, auth, "refs/heads/main:refs/heads/main"); err == nil {
			t.Fatal("non-fast-forward push succeeded")
		}
		if err := push(b, auth, "+refs/heads/main:refs/heads/main"); err != nil {
			t.Fatalf("force push: %v", err)
		}
	})
}

func TestAuthRequired(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		tests := []struct {
			name string
			auth transport.AuthMethod
		}{
			{"no credentials", nil},
			{"wrong token", &githttp.BasicAuth{Username: "x-access-token", Password: "nope"}},
			{"token as username", &githttp.BasicAuth{Username: token}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: s.URL("acme/apps"), Auth: tc.auth})
				if !errors.Is(err, transport.ErrAuthenticationRequired) {
					t.Errorf("clone: %v, want ErrAuthenticationRequired", err)
				}
				repo := clone(t, s)
				commit(t, repo, "README.md", tc.name)
				err = push(repo, tc.auth, "refs/heads/main:refs/heads/main")
				if !errors.Is(err, transport.ErrAuthenticationRequired) {
					t.Errorf("push: %v, want ErrAuthenticationRequired", err)
				}
				if strings.Contains(err.Error(), token) {
					t.Errorf("error leaks the token: %v", err)
				}
			})
		}
		if got := s.Pushes(); got != 0 {
			t.Errorf("Pushes() = %d after refused pushes, want 0", got)
		}
	})
}

func TestFailPushes(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		repo := clone(t, s)
		before := branchSHA(t, s, "main")
		h := commit(t, repo, "README.md", "changed\n")
		s.FailPushes(1)
		if err := push(repo, auth, "refs/heads/main:refs/heads/main"); err == nil {
			t.Fatal("push succeeded despite FailPushes(1)")
		}
		if got := branchSHA(t, s, "main"); got != before {
			t.Errorf("failed push moved main to %s", got)
		}
		if err := push(repo, auth, "refs/heads/main:refs/heads/main"); err != nil {
			t.Fatalf("push after the injected failure: %v", err)
		}
		if got := branchSHA(t, s, "main"); got != h.String() {
			t.Errorf("main = %s, want %s", got, h)
		}
		if got := s.Pushes(); got != 2 {
			t.Errorf("Pushes() = %d, want 2 (failed attempts count)", got)
		}
	})
}

// TestGitCLI covers what go-git does not exercise: protocol v2, GitHub's
// suffix-less URLs, and chunked request bodies (pushes over http.postBuffer).
func TestGitCLI(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		url := strings.Replace(s.URL("acme/apps"), "http://", "http://x-access-token:"+token+"@", 1)
		work := t.TempDir()
		run := func(args ...string) string {
			t.Helper()
			out, err := gitOutput(work, nil, args...)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		if out := run("ls-remote", strings.TrimSuffix(url, ".git")); !strings.Contains(out, "refs/heads/main") {
			t.Errorf("ls-remote = %q, want refs/heads/main", out)
		}
		run("clone", "--quiet", url, "c")
		big := make([]byte, 256<<10) // incompressible, so the pack exceeds postBuffer
		rand.Read(big)
		if err := os.WriteFile(filepath.Join(work, "c", "blob.bin"), big, 0o644); err != nil {
			t.Fatal(err)
		}
		run("-C", "c", "add", "blob.bin")
		run("-C", "c", "commit", "--quiet", "-m", "big")
		run("-C", "c", "-c", "http.postBuffer=1024", "push", "--quiet", "origin", "HEAD:refs/heads/big")
		if got, want := branchSHA(t, s, "big"), strings.TrimSpace(run("-C", "c", "rev-parse", "HEAD")); got != want {
			t.Errorf("big = %q, want %q", got, want)
		}
		cmd := exec.Command("git", "ls-remote", s.URL("acme/apps"))
		cmd.Env = isolatedGitEnv()
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("ls-remote without credentials succeeded: %s", out)
		}
	})
}

func TestCreateRepo(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		if _, err := s.CreateRepo("acme", "apps", nil, ""); err == nil {
			t.Error("creating an existing repository succeeded")
		}
		if _, err := s.CreateRepo("acme", "evil", map[string][]byte{"../x": nil}, ""); err == nil {
			t.Error("a path outside the repository was accepted")
		}
		if _, err := s.CreateRepo("acme", "a/b", nil, ""); err == nil {
			t.Error("a name with a slash was accepted")
		}
		if _, err := s.CreateRepo("acme", "empty", nil, "trunk"); err != nil {
			t.Fatal(err)
		}
		out, err := gitOutput("", []string{"GIT_DIR=" + s.Dir("acme", "empty")}, "symbolic-ref", "HEAD")
		if err != nil || strings.TrimSpace(out) != "refs/heads/trunk" {
			t.Errorf("HEAD = %q, %v; want refs/heads/trunk", out, err)
		}
		// Same files, same SHA: golden outputs can name the initial commit.
		other := newServer(t)
		if a, b := branchSHA(t, s, "main"), branchSHA(t, other, "main"); a != b {
			t.Errorf("initial commits differ: %s vs %s", a, b)
		}
	})
}

func TestNewRequiresToken(t *testing.T) {
	if _, err := New(t.TempDir(), ""); err == nil {
		t.Error("New accepted an empty token")
	}
}

// TestLeaseHonoured: a push leased against a tip that has moved is refused
// at both moments a competing push can land. Before the advertisement
// go-git's lease check sees it; after, receive-pack refuses to update a ref
// whose old value is no longer the one the pusher sent, so git
// http-backend keeps the promise that the client-side check alone cannot.
func TestLeaseHonoured(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		for _, tc := range []struct {
			name  string
			stage PushStage
		}{
			{"before advertise", BeforeAdvertise},
			{"before update", BeforeUpdate},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := newServer(t)
				bot, person := clone(t, s), clone(t, s)
				leased := plumbing.NewHash(branchSHA(t, s, "main"))
				theirs := commit(t, person, "README.md", "a person's change\n")
				commit(t, bot, "README.md", "the bot's change\n")
				var herr error
				s.OnNextPush(tc.stage, func() { herr = push(person, auth, "refs/heads/main:refs/heads/main") })
				err := bot.Push(&git.PushOptions{
					Auth:           auth,
					RefSpecs:       []config.RefSpec{"+refs/heads/main:refs/heads/main"},
					ForceWithLease: &git.ForceWithLease{RefName: "refs/heads/main", Hash: leased},
				})
				if herr != nil {
					t.Fatalf("the competing push: %v", herr)
				}
				if err == nil {
					t.Fatal("a push leased against an old tip went through")
				}
				if got := branchSHA(t, s, "main"); got != theirs.String() {
					t.Errorf("main = %s, want the person's %s", got, theirs)
				}
			})
		}
	})
}

func TestOnNextPushFiresOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		repo := clone(t, s)
		n := 0
		s.OnNextPush(BeforeUpdate, func() { n++ })
		// A clone is no push: the hook waits for one.
		clone(t, s)
		if n != 0 {
			t.Fatalf("hook fired %d times on a clone", n)
		}
		for i := range 2 {
			commit(t, repo, "README.md", fmt.Sprintf("change %d\n", i))
			if err := push(repo, auth, "refs/heads/main:refs/heads/main"); err != nil {
				t.Fatal(err)
			}
		}
		if n != 1 {
			t.Errorf("hook fired %d times over two pushes, want 1", n)
		}
	})
}

// TestCreateRepoAsGit: the in-process initial commit is the one git's own
// init, add and commit make of the same files, so golden outputs that name
// it hold, and git reads the repository without complaint.
func TestCreateRepoAsGit(t *testing.T) {
	for name, files := range map[string]map[string][]byte{
		"none": nil,
		"nested": {
			"a/b/c.yaml": []byte("x: 1\n"),
			"a.b":        []byte("dot sorts before slash\n"),
			"a-b/x":      []byte("dash sorts before dot\n"),
			"a/z":        nil,
			"README.md":  []byte("demo\n"),
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t, newInProcessServer)
			dir, err := s.CreateRepo("acme", name, files, "trunk")
			if err != nil {
				t.Fatal(err)
			}
			want := gitInitialCommit(t, files, "trunk")
			got, err := gitOutput("", []string{"GIT_DIR=" + dir}, "rev-parse", "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("initial commit %q, git makes %q", got, want)
			}
			if out, err := gitOutput("", []string{"GIT_DIR=" + dir}, "fsck", "--strict", "--no-dangling"); err != nil {
				t.Errorf("git fsck: %v %s", err, out)
			}
		})
	}
}

// gitInitialCommit makes the initial commit of files with the git CLI, as
// CreateRepo did before it was built in process, and returns its hash.
func gitInitialCommit(t *testing.T, files map[string][]byte, branch string) string {
	t.Helper()
	dir, work := filepath.Join(t.TempDir(), "repo.git"), t.TempDir()
	for name, data := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"GIT_DIR=" + dir, "GIT_WORK_TREE=" + work, "GIT_INDEX_FILE=" + filepath.Join(t.TempDir(), "index"),
		"GIT_AUTHOR_DATE=" + fixtureDate, "GIT_COMMITTER_DATE=" + fixtureDate,
	}
	if _, err := gitOutput("", nil, "init", "--quiet", "--bare", "--initial-branch="+branch, dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"add", "--all", "--force", "."},
		{"commit", "--quiet", "--allow-empty", "--no-verify", "-m", "Initial commit"},
	} {
		if _, err := gitOutput(work, env, args...); err != nil {
			t.Fatal(err)
		}
	}
	out, err := gitOutput("", env, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeleteLeased: a branch is deleted by a push, and a delete whose old
// value is overtaken before the update is refused, as receive-pack does.
func TestDeleteLeased(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		bot, person := clone(t, s), clone(t, s)
		commit(t, bot, "README.md", "bot\n")
		for _, b := range []string{"gone", "kept"} {
			if err := push(bot, auth, "refs/heads/main:refs/heads/"+b); err != nil {
				t.Fatal(err)
			}
		}
		if err := push(bot, auth, ":refs/heads/gone"); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if got := branchSHA(t, s, "gone"); got != "" {
			t.Errorf("deleted branch still at %s", got)
		}
		theirs := commit(t, person, "README.md", "person\n")
		s.OnNextPush(BeforeUpdate, func() {
			if err := push(person, auth, "+refs/heads/main:refs/heads/kept"); err != nil {
				t.Errorf("the competing push: %v", err)
			}
		})
		if err := push(bot, auth, ":refs/heads/kept"); err == nil {
			t.Error("a delete of a branch that moved meanwhile went through")
		}
		if got := branchSHA(t, s, "kept"); got != theirs.String() {
			t.Errorf("kept = %q, want the person's %s", got, theirs)
		}
	})
}

// TestAtomicPush: an atomic push with one stale ref updates none, and a
// create of a branch that appeared meanwhile is refused.
func TestAtomicPush(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		bot, person := clone(t, s), clone(t, s)
		commit(t, bot, "README.md", "bot\n")
		theirs := commit(t, person, "README.md", "person\n")
		s.OnNextPush(BeforeUpdate, func() {
			if err := push(person, auth, "refs/heads/main:refs/heads/b"); err != nil {
				t.Errorf("the competing push: %v", err)
			}
		})
		err := bot.Push(&git.PushOptions{Auth: auth, Atomic: true, RefSpecs: []config.RefSpec{
			"refs/heads/main:refs/heads/a", "refs/heads/main:refs/heads/b",
		}})
		if err == nil {
			t.Fatal("an atomic push with a ref created meanwhile went through")
		}
		if got := branchSHA(t, s, "a"); got != "" {
			t.Errorf("a = %s: half of an atomic push landed", got)
		}
		if got := branchSHA(t, s, "b"); got != theirs.String() {
			t.Errorf("b = %q, want the person's %s", got, theirs)
		}
	})
}

// TestFetchIgnoresUnknownHaves: a client offers its unpushed commits as
// haves (imagebot's after a refused push); the fetch still works.
func TestFetchIgnoresUnknownHaves(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		bot, person := clone(t, s), clone(t, s)
		commit(t, bot, "README.md", "never pushed\n")
		theirs := commit(t, person, "README.md", "person\n")
		if err := push(person, auth, "refs/heads/main:refs/heads/main"); err != nil {
			t.Fatal(err)
		}
		err := bot.Fetch(&git.FetchOptions{Auth: auth, RefSpecs: []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}})
		if err != nil {
			t.Fatalf("fetch: %v", err)
		}
		ref, err := bot.Reference("refs/remotes/origin/main", true)
		if err != nil || ref.Hash() != theirs {
			t.Errorf("origin/main = %v, %v; want %s", ref, err, theirs)
		}
	})
}

func TestRepositoryNotFound(t *testing.T) {
	eachBackend(t, func(t *testing.T, newServer func(*testing.T) *Server) {
		s := newServer(t)
		_, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: s.URL("acme/missing"), Auth: auth})
		if !errors.Is(err, transport.ErrRepositoryNotFound) {
			t.Errorf("clone: %v, want ErrRepositoryNotFound", err)
		}
	})
}
