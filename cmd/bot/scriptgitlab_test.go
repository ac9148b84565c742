package main

import (
	"fmt"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// The commands below give a script a GitLab instance: the fake GitLab
// API (gitlabtest) serving git over smart HTTP on its own host, as GitLab
// does, in front of gittest's repository.
//
//	glrepo DIR [PATH]
//	                the project acme/gitops from DIR's files, cloned to $WORK/checkout
//	                (origin on the instance); sets GITLAB_TOKEN, CI_SERVER_URL and
//	                CI_PROJECT_PATH as GitLab CI does, and unsets GITHUB_TOKEN;
//	                PATH installs the instance under a path (/gitlab)
//	glproject PATH DIR [archived]
//	                another project on the same instance, PATH (owner/name) from
//	                DIR's files; archived: archived, with no repository
//	glmrs [PATH]    print the number of PATH's merge requests (default acme/gitops),
//	                then each: !N state source title
//	glclose BRANCH  close BRANCH's open merge request without merging
//	glmerge BRANCH  merge BRANCH's open merge request, as a maintainer does
//	glbody BRANCH   print the description of BRANCH's newest merge request
//	glissue         print the description of acme/gitops's only issue (the dashboard)
//	glage DUR       let DUR pass for acme/gitops's merge requests (see gitlabtest.Server.Age)
//	glwrites        print the API writes since the last glwrites ("N writes")
//	glrequests      print the API requests since the last glrequests ("N requests")

const gitlabScriptToken = "glpat-SCRIPT7oken5ecretNotPrinted"

func gitlabCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"glrepo": cmdGLRepo, "glproject": cmdGLProject, "glmrs": cmdGLMRs, "glclose": cmdGLClose, "glwrites": cmdGLWrites, "glrequests": cmdGLRequests,
		"glmerge": cmdGLMerge, "glbody": cmdGLBody, "glissue": cmdGLIssue, "glage": cmdGLAge,
		"regmany": cmdRegMany, // script_many_test.go
	}
}

func gitlabOf(ts *testscript.TestScript) (*scriptRemote, *gitlabtest.Server) {
	r := remoteOf(ts)
	if r.gl == nil {
		ts.Fatalf("no GitLab: run glrepo first")
	}
	return r, r.gl
}

func cmdGLRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: glrepo dir [basepath]")
	}
	base := ""
	if len(args) == 2 {
		base = args[1]
	}
	r, _ := ts.Value(remoteKey{}).(*scriptRemote)
	gs, err := gittest.New(ts.MkAbs("remote"), gitlabScriptToken)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("acme", "gitops", readFiles(ts, args[0]), "main")
	ts.Check(err)
	gl := gitlabtest.New(gitlabtest.WithToken(gitlabScriptToken), gitlabtest.WithClock(r.now), gitlabtest.WithGitRemote(gs.URL("acme/gitops")), gitlabtest.WithBasePath(base))
	ts.Defer(gl.Close)
	gl.AddProject("acme/gitops", "main", githubtest.BareRepos(gs.Dir))
	r.gs, r.gl = gs, gl
	auth := &githttp.BasicAuth{Username: "oauth2", Password: gitlabScriptToken}
	_, err = git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: gl.URL() + "/acme/gitops.git", Auth: auth})
	ts.Check(err)
	ts.Setenv("GITLAB_TOKEN", gitlabScriptToken)
	ts.Setenv("CI_SERVER_URL", gl.URL())
	ts.Setenv("CI_PROJECT_PATH", "acme/gitops")
	ts.Setenv("GITHUB_TOKEN", "")
}

func cmdGLProject(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || (len(args) == 3 && args[2] != "archived") {
		ts.Fatalf("usage: glproject owner/name dir [archived]")
	}
	r, gl := gitlabOf(ts)
	owner, name, ok := strings.Cut(args[0], "/")
	if !ok {
		ts.Fatalf("glproject: want owner/name, have %q", args[0])
	}
	if len(args) == 3 {
		gl.AddProject(args[0], "main", nil, gitlabtest.WithArchived())
		return
	}
	_, err := r.gs.CreateRepo(owner, name, readFiles(ts, args[1]), "main")
	ts.Check(err)
	gl.AddProject(args[0], "main", githubtest.BareRepos(r.gs.Dir))
}

func cmdGLMRs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: glmrs [owner/name]")
	}
	_, gl := gitlabOf(ts)
	project := "acme/gitops"
	if len(args) == 1 {
		project = args[0]
	}
	mrs := gl.MRs(project)
	fmt.Fprintf(ts.Stdout(), "%d merge requests\n", len(mrs))
	for _, mr := range mrs {
		fmt.Fprintf(ts.Stdout(), "!%d %s %s %s\n", mr.IID, mr.State, mr.Source, mr.Title)
	}
}

func cmdGLClose(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: glclose branch")
	}
	_, gl := gitlabOf(ts)
	for _, mr := range gl.MRs("acme/gitops") {
		if mr.Source == args[0] && mr.State == "opened" {
			ts.Check(gl.CloseMR("acme/gitops", mr.IID))
			return
		}
	}
	ts.Fatalf("no open merge request from %s", args[0])
}

// glMR is the newest merge request from branch, open when open is true.
func glMR(ts *testscript.TestScript, branch string, open bool) gitlabtest.MR {
	_, gl := gitlabOf(ts)
	var found *gitlabtest.MR
	for _, mr := range gl.MRs("acme/gitops") {
		if mr.Source == branch && (!open || mr.State == "opened") {
			found = &mr
		}
	}
	if found == nil {
		ts.Fatalf("no merge request from %s", branch)
	}
	return *found
}

func cmdGLMerge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: glmerge branch")
	}
	_, gl := gitlabOf(ts)
	ts.Check(gl.MergeMR("acme/gitops", glMR(ts, args[0], true).IID))
}

func cmdGLBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: glbody branch")
	}
	fmt.Fprint(ts.Stdout(), glMR(ts, args[0], false).Description)
}

func cmdGLIssue(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: glissue")
	}
	_, gl := gitlabOf(ts)
	is := gl.Issues("acme/gitops")
	if len(is) != 1 {
		ts.Fatalf("%d issues, want the dashboard alone", len(is))
	}
	fmt.Fprint(ts.Stdout(), is[0].Description)
}

func cmdGLAge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: glage duration")
	}
	_, gl := gitlabOf(ts)
	ts.Check(gl.Age("acme/gitops", parseAgo(ts, args[0])))
}

// glCounts are each fake's counters at the last glwrites and
// glrequests; scripts run in parallel.
var glCounts = struct {
	sync.Mutex
	writes, requests map[*gitlabtest.Server]int
}{writes: map[*gitlabtest.Server]int{}, requests: map[*gitlabtest.Server]int{}}

func cmdGLWrites(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: glwrites")
	}
	_, gl := gitlabOf(ts)
	glCounts.Lock()
	defer glCounts.Unlock()
	n := gl.Writes()
	fmt.Fprintf(ts.Stdout(), "%d writes\n", n-glCounts.writes[gl])
	glCounts.writes[gl] = n
}

func cmdGLRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: glrequests")
	}
	_, gl := gitlabOf(ts)
	glCounts.Lock()
	defer glCounts.Unlock()
	n := gl.Requests()
	fmt.Fprintf(ts.Stdout(), "%d requests\n", n-glCounts.requests[gl])
	glCounts.requests[gl] = n
}
