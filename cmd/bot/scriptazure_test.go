package main

import (
	"fmt"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/testing/azuretest"
	"github.com/imagebot/imagebot/internal/testing/forgetest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// Scripts on Azure DevOps: the fake Azure DevOps (azuretest) serves the
// API and, at the repository's own clone URL in the collection, git over
// smart HTTP from gittest's repository, which refuses a fetch that does
// not ask for multi_ack, as Azure Repos does: imagebot (a process of its
// own) must apply go-git's workaround.
//
//	azrepo DIR [pipelines|server]
//	                the repository acme/gitops (project acme) of the organisation
//	                contoso from DIR's files, cloned to $WORK/checkout; sets
//	                AZURE_DEVOPS_TOKEN and empties GITHUB_TOKEN. pipelines: as an
//	                Azure Pipelines job sees it instead, with the job token
//	                (SYSTEM_ACCESSTOKEN, SYSTEM_COLLECTIONURI, SYSTEM_TEAMPROJECT,
//	                BUILD_REPOSITORY_NAME, BUILD_REPOSITORY_PROVIDER=TfsGit) and no
//	                AZURE_DEVOPS_TOKEN. server: Azure DevOps Server under /tfs, the
//	                collection http://HOST/tfs/contoso. Sets AZURE_URL (the collection), AZURE_HOST (its
//	                scheme and host) and AZURE_CLONE (the clone URL).
//	azprs           print the number of PRs, then each: !N status source title
//	azbody BRANCH   print the description of BRANCH's newest PR
//	azabandon BRANCH
//	                abandon BRANCH's active PR, as a person does
//	azwrites        print the API writes since the last azwrites ("N writes")
//	azrequests      print the API requests since the last azrequests ("N requests")
//
// gitcommit (scriptgit_test.go) pushes to the repository's main, as a person.

// scriptAzure is one script's fake Azure DevOps.
type scriptAzure struct {
	s                *azuretest.Server
	writes, requests int
}

// azures are the scripts' fakes: the shared Setup knows none of them.
var azures sync.Map // *testscript.TestScript -> *scriptAzure

func azureCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"azrepo": cmdAzRepo, "azprs": cmdAzPRs, "azbody": cmdAzBody, "azabandon": cmdAzAbandon, "azwrites": cmdAzWrites, "azrequests": cmdAzRequests,
	}
}

func azureOf(ts *testscript.TestScript) *scriptAzure {
	a, ok := azures.Load(ts)
	if !ok {
		ts.Fatalf("no Azure DevOps: run azrepo first")
	}
	return a.(*scriptAzure)
}

func cmdAzRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "pipelines" && args[1] != "server") {
		ts.Fatalf("usage: azrepo dir [pipelines|server]")
	}
	pipelines, base := len(args) == 2 && args[1] == "pipelines", ""
	if len(args) == 2 && args[1] == "server" {
		base = "/tfs"
	}
	token := scriptToken // a PAT: gitcommit pushes with it too
	if pipelines {
		token = azuretest.PipelineToken
	}
	gs, err := gittest.New(ts.MkAbs("remote"), token)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("acme", "gitops", readFiles(ts, args[0]), "main")
	ts.Check(err)
	gs.RequireMultiACK()
	// This process clones and pushes as a person: it needs the workaround too.
	job.SetUpGit(job.AzureKind)
	r, _ := ts.Value(remoteKey{}).(*scriptRemote)
	s := azuretest.New(azuretest.WithToken(token, azuretest.Bot), azuretest.WithClock(r.now),
		azuretest.WithGit(forgetest.BareRepos(gs.Dir), "acme", "gitops"), azuretest.WithGitRemote(gs.URL("acme/gitops")), azuretest.WithBasePath(base))
	ts.Defer(s.Close)
	r.gs = gs
	azures.Store(ts, &scriptAzure{s: s})
	ts.Defer(func() { azures.Delete(ts) })
	_, err = git.PlainClone(ts.MkAbs("checkout"), false, &git.CloneOptions{URL: s.CloneURL(),
		Auth: &githttp.BasicAuth{Username: "jane", Password: token}})
	ts.Check(err)
	ts.Setenv("GITHUB_TOKEN", "")
	ts.Setenv("AZURE_URL", s.URL())
	ts.Setenv("AZURE_HOST", strings.TrimSuffix(s.URL(), base+"/"+azuretest.Org))
	ts.Setenv("AZURE_CLONE", s.CloneURL())
	if !pipelines {
		ts.Setenv("AZURE_DEVOPS_TOKEN", token)
		return
	}
	for k, v := range map[string]string{"SYSTEM_ACCESSTOKEN": token, "SYSTEM_COLLECTIONURI": s.URL() + "/", "SYSTEM_TEAMPROJECT": "acme",
		"BUILD_REPOSITORY_NAME": "gitops", "BUILD_REPOSITORY_PROVIDER": "TfsGit", "TF_BUILD": "True"} {
		ts.Setenv(k, v)
	}
}

func cmdAzPRs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: azprs")
	}
	prs := azureOf(ts).s.PRs()
	fmt.Fprintf(ts.Stdout(), "%d pull requests\n", len(prs))
	for _, pr := range prs {
		fmt.Fprintf(ts.Stdout(), "!%d %s %s %s\n", pr.ID, pr.Status, strings.TrimPrefix(pr.Source, "refs/heads/"), pr.Title)
	}
}

func cmdAzBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: azbody branch")
	}
	prs := azureOf(ts).s.PRs()
	for i := len(prs) - 1; i >= 0; i-- {
		if strings.TrimPrefix(prs[i].Source, "refs/heads/") == args[0] {
			fmt.Fprintln(ts.Stdout(), prs[i].Description)
			return
		}
	}
	ts.Fatalf("no pull request from %s", args[0])
}

func cmdAzAbandon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: azabandon branch")
	}
	s := azureOf(ts).s
	for _, pr := range s.PRs() {
		if pr.Source == "refs/heads/"+args[0] && pr.Status == "active" {
			s.AbandonPR(pr.ID)
			return
		}
	}
	ts.Fatalf("no active pull request from %s", args[0])
}

func cmdAzWrites(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: azwrites")
	}
	a := azureOf(ts)
	n := a.s.Writes()
	fmt.Fprintf(ts.Stdout(), "%d writes\n", n-a.writes)
	a.writes = n
}

func cmdAzRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: azrequests")
	}
	a := azureOf(ts)
	n := a.s.Requests()
	fmt.Fprintf(ts.Stdout(), "%d requests\n", n-a.requests)
	a.requests = n
}
