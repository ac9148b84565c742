package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/internal/testing/bitbuckettest"
	"github.com/imagebot/imagebot/internal/testing/forgetest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// Scripts on Bitbucket Cloud and Data Center: one local server stands for
// the host, answering its API from the fake (internal/testing/bitbuckettest)
// and git from gittest's repositories, as bitbucket.org (with
// --forge-url) and a Data Center do on one host.
//
//	bbrepo DIR       the repository acme/gitops on a fake Bitbucket Cloud from DIR's
//	                 files, cloned to $WORK/checkout; sets BITBUCKET_TOKEN,
//	                 BITBUCKET_USERNAME and BITBUCKET_URL (for --forge-url), and
//	                 empties GITHUB_TOKEN
//	bbdcrepo DIR PATH
//	                 ACME/gitops on a fake Data Center installed under PATH
//	                 (/bitbucket), cloned from PATH/scm/acme/gitops.git; sets
//	                 BITBUCKET_SERVER_TOKEN and BITBUCKET_DC_URL
//	bbprs            print the number of PRs, then each: #N STATE source title
//	bbissues         print the number of issues, then each: #N title
//	bbdecline BRANCH decline BRANCH's open PR, as a person does
//	bbmerge BRANCH   merge BRANCH's open PR into main, as a person does
//	bbpush DIR MESSAGE...
//	                 a person's commit of DIR's files on main, pushed
//	bbwrites         print the API writes since the last bbwrites ("N writes")
//	bbrequests       print the API requests since the last bbrequests ("N requests"),
//	                 then each: METHOD PATH

// bitbuckets are the scripts' Bitbuckets, by script: kept here rather
// than in the setup's values, which every script would carry.
var bitbuckets sync.Map // *testscript.TestScript -> *scriptBitbucket

// scriptBitbucket is one script's Bitbucket, Cloud's or Data Center's.
type scriptBitbucket struct {
	cloud            *bitbuckettest.Server
	dc               *bitbuckettest.DataCenter
	gs               *gittest.Server
	clone            string // the clone URL people push to
	writes, requests int

	mu    sync.Mutex
	calls []string // the API requests since the last bbrequests: "GET /2.0/user"
}

// api forwards to the fake API at target, noting each request.
func (b *scriptBitbucket) api(target string) http.Handler {
	p := proxy(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.calls = append(b.calls, r.Method+" "+r.URL.Path)
		b.mu.Unlock()
		p.ServeHTTP(w, r)
	})
}

func bitbucketCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"bbrepo": cmdBBRepo, "bbdcrepo": cmdBBDCRepo, "bbprs": cmdBBPRs, "bbissues": cmdBBIssues, "bbdecline": cmdBBDecline, "bbmerge": cmdBBMerge,
		"bbpush": cmdBBPush, "bbwrites": cmdBBWrites, "bbrequests": cmdBBRequests,
	}
}

func bitbucketOf(ts *testscript.TestScript) *scriptBitbucket {
	v, _ := bitbuckets.Load(ts)
	b, _ := v.(*scriptBitbucket)
	if b == nil {
		ts.Fatalf("no Bitbucket: run bbrepo or bbdcrepo first")
	}
	return b
}

// keep makes st the script's Bitbucket, until it ends.
func keep(ts *testscript.TestScript, st *scriptBitbucket) {
	bitbuckets.Store(ts, st)
	ts.Defer(func() { bitbuckets.Delete(ts) })
}

// gitRemote makes gs the git server of a Bitbucket: the repositories at
// DIR, one of them acme/gitops with DIR's files.
func gitRemote(ts *testscript.TestScript, dir string) *gittest.Server {
	gs, err := gittest.New(ts.MkAbs("remote"), scriptToken)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("acme", "gitops", readFiles(ts, dir), "main")
	ts.Check(err)
	if r, _ := ts.Value(remoteKey{}).(*scriptRemote); r != nil {
		r.gs = gs // gitshow reads it
	}
	return gs
}

// personAuth is how people clone and push in the scripts: as themselves,
// with a password the fake git server takes.
var personAuth = &githttp.BasicAuth{Username: "jane", Password: scriptToken}

// git serves gs's repositories to people and to the bot's token with the
// user name the host wants with it (Cloud's API tokens
// x-bitbucket-api-token-auth, Data Center's the token's user): another
// user is a 401, as the host answers a token sent with the wrong one.
func gitAs(gs http.Handler, bot string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, _, ok := r.BasicAuth(); ok && u != bot && u != personAuth.Username {
			w.Header().Set("WWW-Authenticate", `Basic realm="Bitbucket"`)
			http.Error(w, "Authentication failed: "+u+" is not this token's user", http.StatusUnauthorized)
			return
		}
		gs.ServeHTTP(w, r)
	})
}

// proxy forwards to the fake API at target.
func proxy(target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

func cmdBBRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bbrepo dir")
	}
	gs := gitRemote(ts, args[0])
	bb := bitbuckettest.New(bitbuckettest.WithToken(bitbuckettest.BotEmail, scriptToken))
	ts.Defer(bb.Close)
	bb.AddRepo("acme", "gitops", "main", bitbuckettest.WithGit(forgetest.BareRepos(gs.Dir)))
	st := &scriptBitbucket{cloud: bb, gs: gs}
	api, remote := st.api(bb.URL()), gitAs(gs, "x-bitbucket-api-token-auth")
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/2.0/") {
			api.ServeHTTP(w, r)
			return
		}
		remote.ServeHTTP(w, r)
	}))
	ts.Defer(host.Close)
	st.clone = host.URL + "/acme/gitops.git"
	keep(ts, st)
	_, err := git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: st.clone, Auth: personAuth})
	ts.Check(err)
	ts.Setenv("GITHUB_TOKEN", "")
	ts.Setenv("BITBUCKET_TOKEN", scriptToken)
	ts.Setenv("BITBUCKET_USERNAME", bitbuckettest.BotEmail)
	ts.Setenv("BITBUCKET_URL", host.URL)
}

func cmdBBDCRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bbdcrepo dir path")
	}
	gs := gitRemote(ts, args[0])
	dc := bitbuckettest.NewDataCenter(bitbuckettest.WithDCToken(scriptToken))
	ts.Defer(dc.Close)
	dc.AddRepo("ACME", "gitops", "main")
	// The project key is upper case in the API, lower case in clone URLs.
	dc.SetGit("ACME/gitops", forgetest.BareRepos(func(project, slug string) string { return gs.Dir(strings.ToLower(project), slug) }))
	st := &scriptBitbucket{dc: dc, gs: gs}
	api := st.api(dc.URL())
	mux := http.NewServeMux()
	mux.Handle("/rest/", api)
	mux.Handle("/scm/", http.StripPrefix("/scm", gitAs(gs, bitbuckettest.DCUser)))
	host := httptest.NewServer(forgetest.Mount(args[1], mux))
	ts.Defer(host.Close)
	server := host.URL + strings.TrimSuffix(args[1], "/")
	st.clone = server + "/scm/acme/gitops.git"
	keep(ts, st)
	_, err := git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: st.clone, Auth: personAuth})
	ts.Check(err)
	ts.Setenv("GITHUB_TOKEN", "")
	ts.Setenv("BITBUCKET_SERVER_TOKEN", scriptToken)
	ts.Setenv("BITBUCKET_DC_URL", server)
}

// bbPR is a pull request as the scripts print it, on either host.
type bbPR struct {
	number               int
	state, source, title string
}

func (b *scriptBitbucket) prs() []bbPR {
	var out []bbPR
	if b.cloud != nil {
		for _, pr := range b.cloud.PRs("acme/gitops") {
			out = append(out, bbPR{pr.ID, pr.State, pr.Source, pr.Title})
		}
		return out
	}
	for _, pr := range b.dc.PRs("ACME/gitops") {
		out = append(out, bbPR{pr.ID, pr.State, pr.From, pr.Title})
	}
	return out
}

func cmdBBPRs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: bbprs")
	}
	prs := bitbucketOf(ts).prs()
	fmt.Fprintf(ts.Stdout(), "%d pull requests\n", len(prs))
	for _, pr := range prs {
		fmt.Fprintf(ts.Stdout(), "#%d %s %s %s\n", pr.number, pr.state, pr.source, pr.title)
	}
}

func cmdBBIssues(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: bbissues")
	}
	b := bitbucketOf(ts)
	if b.cloud == nil {
		ts.Fatalf("bbissues: Data Center has no issues")
	}
	issues := b.cloud.Issues("acme/gitops")
	fmt.Fprintf(ts.Stdout(), "%d issues\n", len(issues))
	for _, is := range issues {
		fmt.Fprintf(ts.Stdout(), "#%d %s\n", is.ID, is.Title)
	}
}

func cmdBBDecline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bbdecline branch")
	}
	b := bitbucketOf(ts)
	for _, pr := range b.prs() {
		if pr.source == args[0] && pr.state == "OPEN" {
			if b.cloud != nil {
				b.cloud.DeclinePR("acme/gitops", pr.number)
			} else {
				b.dc.DeclinePR("ACME/gitops", pr.number)
			}
			return
		}
	}
	ts.Fatalf("no open pull request from %s", args[0])
}

func cmdBBMerge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bbmerge branch")
	}
	b := bitbucketOf(ts)
	for _, pr := range b.prs() {
		if pr.source == args[0] && pr.state == "OPEN" {
			if b.cloud != nil {
				ts.Check(b.cloud.MergePR("acme/gitops", pr.number))
			} else {
				ts.Check(b.dc.MergePR("ACME/gitops", pr.number))
			}
			return
		}
	}
	ts.Fatalf("no open pull request from %s", args[0])
}

func cmdBBPush(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: bbpush dir message...")
	}
	b := bitbucketOf(ts)
	dir := ts.MkAbs(fmt.Sprintf("push-%d", time.Now().UnixNano()))
	repo, err := git.PlainClone(dir, false, &git.CloneOptions{URL: b.clone, Auth: personAuth,
		ReferenceName: plumbing.NewBranchReferenceName("main"), SingleBranch: true})
	ts.Check(err)
	wt, err := repo.Worktree()
	ts.Check(err)
	for f, data := range readFiles(ts, args[0]) {
		p := filepath.Join(dir, filepath.FromSlash(f))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, data, 0o644))
		_, err := wt.Add(f)
		ts.Check(err)
	}
	who := &object.Signature{Name: "Jane Doe", Email: "jane@acme.example", When: time.Now()}
	_, err = wt.Commit(strings.Join(args[1:], " "), &git.CommitOptions{Author: who, Committer: who})
	ts.Check(err)
	ts.Check(repo.Push(&git.PushOptions{Auth: personAuth, RefSpecs: []gitconfig.RefSpec{"refs/heads/main:refs/heads/main"}}))
	ts.Check(os.RemoveAll(dir))
}

func (b *scriptBitbucket) counts() (writes, requests int) {
	if b.cloud != nil {
		return b.cloud.Writes(), b.cloud.Requests()
	}
	return b.dc.Writes(), b.dc.Requests()
}

func cmdBBWrites(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: bbwrites")
	}
	b := bitbucketOf(ts)
	n, _ := b.counts()
	fmt.Fprintf(ts.Stdout(), "%d writes\n", n-b.writes)
	b.writes = n
}

func cmdBBRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: bbrequests")
	}
	b := bitbucketOf(ts)
	_, n := b.counts()
	fmt.Fprintf(ts.Stdout(), "%d requests\n", n-b.requests)
	b.requests = n
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.calls {
		fmt.Fprintln(ts.Stdout(), c)
	}
	b.calls = nil
}
