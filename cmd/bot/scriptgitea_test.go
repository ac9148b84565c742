package main

import (
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/internal/testing/giteatest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// Scripts on Gitea (or Forgejo): the fake Gitea serves the API and, at the
// same host as Gitea does, the git remote.
//
//	gitearepo DIR [PATH]
//	                 the repository acme/gitops on a fake Gitea from DIR's files,
//	                 cloned to $WORK/checkout; sets GITEA_TOKEN and GITEA_SERVER_URL,
//	                 and empties GITHUB_TOKEN; PATH installs the server under a path (/gitea)
//	teaprs           print the number of PRs, then each: #N state head title
//	teaclose BRANCH  close BRANCH's open PR without merging
//	teawrites        print the API writes since the last teawrites ("N writes")

type giteaKey struct{}

// scriptGitea is one script's fake Gitea.
type scriptGitea struct {
	g      *giteatest.Server
	writes int
}

func giteaCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"gitearepo": cmdGiteaRepo, "teaprs": cmdTeaPRs, "teaclose": cmdTeaClose, "teawrites": cmdTeaWrites,
	}
}

func giteaOf(ts *testscript.TestScript) *scriptGitea {
	g, _ := ts.Value(giteaKey{}).(*scriptGitea)
	if g == nil || g.g == nil {
		ts.Fatalf("no Gitea: run gitearepo first")
	}
	return g
}

func cmdGiteaRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: gitearepo dir [basepath]")
	}
	base := ""
	if len(args) == 2 {
		base = args[1]
	}
	st, _ := ts.Value(giteaKey{}).(*scriptGitea)
	files := readFiles(ts, args[0])
	gs, err := gittest.New(ts.MkAbs("remote"), scriptToken)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("acme", "gitops", files, "main")
	ts.Check(err)
	g := giteatest.New(giteatest.WithToken(scriptToken), giteatest.WithGit(serverURL(gs)), giteatest.WithBasePath(base))
	ts.Defer(g.Close)
	clone := g.URL() + "/acme/gitops.git"
	g.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), giteatest.WithCloneURL(clone))
	st.g = g
	_, err = git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: clone, Auth: scriptAuth})
	ts.Check(err)
	ts.Setenv("GITHUB_TOKEN", "")
	ts.Setenv("GITEA_TOKEN", scriptToken)
	ts.Setenv("GITEA_SERVER_URL", g.URL())
}

func cmdTeaPRs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: teaprs")
	}
	prs := giteaOf(ts).g.PRs("acme", "gitops")
	fmt.Fprintf(ts.Stdout(), "%d pull requests\n", len(prs))
	for _, pr := range prs {
		state := pr.State
		if pr.Merged {
			state = "merged"
		}
		fmt.Fprintf(ts.Stdout(), "#%d %s %s %s\n", pr.Number, state, pr.Head, pr.Title)
	}
}

func cmdTeaClose(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: teaclose branch")
	}
	g := giteaOf(ts).g
	for _, pr := range g.PRs("acme", "gitops") {
		if pr.Head == args[0] && pr.State == "open" {
			ts.Check(g.ClosePR("acme", "gitops", pr.Number))
			return
		}
	}
	ts.Fatalf("no open pull request from %s", args[0])
}

func cmdTeaWrites(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: teawrites")
	}
	g := giteaOf(ts)
	n := g.g.Writes()
	fmt.Fprintf(ts.Stdout(), "%d writes\n", n-g.writes)
	g.writes = n
}
