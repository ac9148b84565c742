package main

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/google/go-github/v60/github"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// Scripts that run `imagebot run` or `rollback` need a git remote and
// GitHub: the commands below give a script the real smart-HTTP remote and
// the stateful fake GitHub, as TestRunStaleDirtyClone does, and let it act
// as the people and tools around the bot (commit with a date, merge, close,
// post Flux statuses and CI check runs).
//
//	gitrepo DIR                  the repository acme/gitops from DIR's files (one commit,
//	                             dated 2024-01-01), cloned to $WORK/checkout; sets
//	                             GITHUB_TOKEN, GITHUB_API_URL, GITHUB_SERVER_URL, GITHUB_REPOSITORY
//	gitcommit AGO DIR MSG        commit DIR's files onto main, dated AGO ago (30h, 0s);
//	                             sets COMMIT to its hash
//	gitshow PATH [BRANCH]        print PATH as it is on BRANCH (main)
//	ghprs                        print the number of PRs, then each: #N state head title
//	ghbody BRANCH                print the body of BRANCH's newest PR
//	ghmerge BRANCH [AGO]         merge BRANCH's open PR, the merge dated AGO ago
//	ghclose BRANCH               close BRANCH's open PR without merging
//	ghstatus REF CONTEXT STATE   post a commit status, as Flux does
//	ghcheck REF NAME CONCLUSION  post a completed check run, as CI does
//	regpush IMAGE TAG            push a new tag of a seeded image
//	ghissue                      print the body of the repository's only issue (the dashboard)
//	ghtick TEXT                  tick the dashboard's checkbox on the line holding TEXT, through the API
//	ghwrites                     print the API writes since the last ghwrites ("N writes")

const scriptToken = "ghs_SCRIPT7oken5ecretNotPrinted"

type (
	registryKey struct{}
	remoteKey   struct{}
)

// scriptRemote is one script's remote and GitHub.
type scriptRemote struct {
	gs *gittest.Server
	gh *githubtest.Server
	gl *gitlabtest.Server // GitLab's, when glrepo made the remote
	// skew is added to the fake GitHub's clock, so that a merge can be
	// dated in the past.
	mu   sync.Mutex
	skew time.Duration
	// writes is the fake's write count at the last ghwrites.
	writes int
}

func (r *scriptRemote) now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Now().Add(r.skew)
}

func gitCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"gitrepo": cmdGitRepo, "gitcommit": cmdGitCommit, "gitshow": cmdGitShow,
		"ghprs": cmdGHPRs, "ghbody": cmdGHBody, "ghmerge": cmdGHMerge, "ghclose": cmdGHClose,
		"ghstatus": cmdGHStatus, "ghcheck": cmdGHCheck, "regpush": cmdRegPush,
		"ghissue": cmdGHIssue, "ghtick": cmdGHTick, "ghwrites": cmdGHWrites,
	}
}

func remoteOf(ts *testscript.TestScript) *scriptRemote {
	r, _ := ts.Value(remoteKey{}).(*scriptRemote)
	if r == nil || r.gs == nil {
		ts.Fatalf("no repository: run gitrepo first")
	}
	return r
}

func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitrepo dir")
	}
	r, _ := ts.Value(remoteKey{}).(*scriptRemote)
	files := readFiles(ts, args[0])
	gs, err := gittest.New(ts.MkAbs("remote"), scriptToken)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("acme", "gitops", files, "main")
	ts.Check(err)
	gh := githubtest.New(githubtest.WithToken(scriptToken), githubtest.WithClock(r.now))
	ts.Defer(gh.Close)
	gh.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/gitops")))
	r.gs, r.gh = gs, gh
	_, err = git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: gs.URL("acme/gitops"), Auth: scriptAuth})
	ts.Check(err)
	ts.Setenv("GITHUB_TOKEN", scriptToken)
	ts.Setenv("GITHUB_API_URL", gh.URL())
	// The git remote's server: the token goes to no other host.
	ts.Setenv("GITHUB_SERVER_URL", serverURL(gs))
	ts.Setenv("GITHUB_REPOSITORY", "acme/gitops")
}

// serverURL is what GITHUB_SERVER_URL says for gs: the URL its
// repositories' clone URLs start with.
func serverURL(gs *gittest.Server) string {
	return strings.TrimSuffix(gs.URL("o/r"), "/o/r.git")
}

var scriptAuth = &githttp.BasicAuth{Username: "x-access-token", Password: scriptToken}

// readFiles reads every file below dir, by slash path.
func readFiles(ts *testscript.TestScript, dir string) map[string][]byte {
	root := ts.MkAbs(dir)
	files := map[string][]byte{}
	ts.Check(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return err
	}))
	return files
}

func parseAgo(ts *testscript.TestScript, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		ts.Fatalf("%q is not a duration ago (30h, 10m, 0s)", s)
	}
	return d
}

func cmdGitCommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: gitcommit ago dir message...")
	}
	r := remoteOf(ts)
	ago := parseAgo(ts, args[0])
	dir := ts.MkAbs(fmt.Sprintf("commit-%d", time.Now().UnixNano()))
	repo, err := git.PlainClone(dir, false, &git.CloneOptions{URL: r.gs.URL("acme/gitops"), Auth: scriptAuth,
		ReferenceName: plumbing.NewBranchReferenceName("main"), SingleBranch: true})
	ts.Check(err)
	wt, err := repo.Worktree()
	ts.Check(err)
	for f, b := range readFiles(ts, args[1]) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, b, 0o644))
		_, err := wt.Add(f)
		ts.Check(err)
	}
	who := &object.Signature{Name: "Jane Doe", Email: "jane@acme.example", When: time.Now().Add(-ago)}
	h, err := wt.Commit(strings.Join(args[2:], " "), &git.CommitOptions{Author: who, Committer: who})
	ts.Check(err)
	ts.Check(repo.Push(&git.PushOptions{Auth: scriptAuth, RefSpecs: []gitconfig.RefSpec{"refs/heads/main:refs/heads/main"}}))
	ts.Check(os.RemoveAll(dir))
	ts.Setenv("COMMIT", h.String())
}

func cmdGitShow(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: gitshow path [branch]")
	}
	branch := "main"
	if len(args) == 2 {
		branch = args[1]
	}
	r := remoteOf(ts)
	repo, err := git.PlainOpen(r.gs.Dir("acme", "gitops"))
	ts.Check(err)
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(branch), true)
	ts.Check(err)
	c, err := repo.CommitObject(ref.Hash())
	ts.Check(err)
	f, err := c.File(args[0])
	ts.Check(err)
	s, err := f.Contents()
	ts.Check(err)
	fmt.Fprint(ts.Stdout(), s)
}

func cmdGHPRs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: ghprs")
	}
	prs := remoteOf(ts).gh.PRs("acme", "gitops")
	fmt.Fprintf(ts.Stdout(), "%d pull requests\n", len(prs))
	for _, pr := range prs {
		state := pr.State
		if pr.Merged {
			state = "merged"
		}
		fmt.Fprintf(ts.Stdout(), "#%d %s %s %s\n", pr.Number, state, pr.Head, pr.Title)
	}
}

// openPR is the newest PR of branch, open when open is true.
func openPR(ts *testscript.TestScript, branch string, open bool) githubtest.PR {
	var found *githubtest.PR
	for _, pr := range remoteOf(ts).gh.PRs("acme", "gitops") {
		if pr.Head == branch && (!open || pr.State == "open") {
			found = &pr
		}
	}
	if found == nil {
		ts.Fatalf("no pull request from %s", branch)
	}
	return *found
}

func cmdGHBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ghbody branch")
	}
	fmt.Fprint(ts.Stdout(), openPR(ts, args[0], false).Body)
}

func cmdGHMerge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: ghmerge branch [ago]")
	}
	r := remoteOf(ts)
	pr := openPR(ts, args[0], true)
	if len(args) == 2 {
		r.mu.Lock()
		r.skew = -parseAgo(ts, args[1])
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			r.skew = 0
			r.mu.Unlock()
		}()
	}
	ts.Check(r.gh.MergePR("acme", "gitops", pr.Number))
}

func cmdGHClose(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ghclose branch")
	}
	ts.Check(remoteOf(ts).gh.ClosePR("acme", "gitops", openPR(ts, args[0], true).Number))
}

// client is go-github against the fake, as Flux or CI would use it.
func scriptClient(ts *testscript.TestScript) *github.Client {
	c := github.NewClient(&http.Client{}).WithAuthToken(scriptToken)
	u, err := c.BaseURL.Parse(remoteOf(ts).gh.URL() + "/")
	ts.Check(err)
	c.BaseURL = u
	return c
}

func cmdGHStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: ghstatus ref context state")
	}
	_, _, err := scriptClient(ts).Repositories.CreateStatus(context.Background(), "acme", "gitops", args[0],
		&github.RepoStatus{Context: &args[1], State: &args[2]})
	ts.Check(err)
}

func cmdGHCheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: ghcheck ref name conclusion")
	}
	_, _, err := scriptClient(ts).Checks.CreateCheckRun(context.Background(), "acme", "gitops", github.CreateCheckRunOptions{
		Name: args[1], HeadSHA: args[0], Status: github.String("completed"), Conclusion: &args[2],
	})
	ts.Check(err)
}

// cmdRegPush pushes image:tag, built at the RFC 3339 time given third
// (default: a day after the seeded repository's newest tag).
func cmdRegPush(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: regpush image tag [created]")
	}
	var opts []fixtures.PushOption
	if len(args) == 3 {
		at, err := time.Parse(time.RFC3339, args[2])
		ts.Check(err)
		opts = append(opts, fixtures.WithCreated(at))
	}
	reg, _ := ts.Value(registryKey{}).(*fixtures.Registry)
	_, err := reg.Push(context.Background(), args[0], args[1], opts...)
	ts.Check(err)
}

// dashboardIssue is the repository's one issue: the bot's dashboard.
func dashboardIssue(ts *testscript.TestScript) githubtest.Issue {
	is := remoteOf(ts).gh.Issues("acme", "gitops")
	if len(is) != 1 {
		ts.Fatalf("%d issues, want the dashboard alone", len(is))
	}
	return is[0]
}

func cmdGHIssue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: ghissue")
	}
	fmt.Fprint(ts.Stdout(), dashboardIssue(ts).Body)
}

// cmdGHTick ticks a box as a person does on the issue's page: the body,
// edited, is sent back whole.
func cmdGHTick(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ghtick text")
	}
	is := dashboardIssue(ts)
	lines := strings.Split(is.Body, "\n")
	ticked := 0
	for i, l := range lines {
		if strings.Contains(l, args[0]) && strings.Contains(l, "- [ ]") {
			lines[i] = strings.Replace(l, "- [ ]", "- [x]", 1)
			ticked++
		}
	}
	if ticked != 1 {
		ts.Fatalf("%d unticked boxes hold %q, want 1", ticked, args[0])
	}
	body := strings.Join(lines, "\n")
	_, _, err := scriptClient(ts).Issues.Edit(context.Background(), "acme", "gitops", is.Number, &github.IssueRequest{Body: &body})
	ts.Check(err)
}

func cmdGHWrites(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: ghwrites")
	}
	r := remoteOf(ts)
	n := r.gh.Writes()
	r.mu.Lock()
	since := n - r.writes
	r.writes = n
	r.mu.Unlock()
	fmt.Fprintf(ts.Stdout(), "%d writes\n", since)
}

// setupRemote gives the script room for a remote (made by gitrepo).
func setupRemote(env *testscript.Env, reg *fixtures.Registry) {
	env.Values[registryKey{}] = reg
	env.Values[remoteKey{}] = &scriptRemote{}
	env.Values[giteaKey{}] = &scriptGitea{}
}

// withCmds merges command tables.
func withCmds(tables ...map[string]func(*testscript.TestScript, bool, []string)) map[string]func(*testscript.TestScript, bool, []string) {
	out := map[string]func(*testscript.TestScript, bool, []string){}
	for _, t := range tables {
		for k, v := range t {
			out[k] = v
		}
	}
	return out
}
