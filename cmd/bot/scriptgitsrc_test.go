package main

import (
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// Scripts about versions deployed by git tag (issue 28) get a forge on
// this machine:
//
//	gitforge   the repository argoproj/argo-rollouts (branch master) with
//	           tags v1.7.2 and v1.8.0 (annotated), served over smart HTTP
//	           beside its releases: v1.7.2 and v1.8.0 serve install.yaml,
//	           only v1.7.2 serves crds.yaml. Sets GITFORGE (http://HOST),
//	           GITFORGE_HOST, GITFORGE_SLUG (the host in branch names),
//	           IMAGEBOT_GIT_TOKEN (the forge's password) and
//	           BADGIT_HTML, BADGIT_404 (_HOST too): hosts answering a
//	           login page and 404 to everything.
func gitSourceCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){"gitforge": cmdGitForge}
}

const gitForgeToken = "forge-7oken-NotPrinted"

func cmdGitForge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: gitforge")
	}
	gs, err := gittest.New("", gitForgeToken)
	ts.Check(err)
	ts.Defer(gs.Close)
	_, err = gs.CreateRepo("argoproj", "argo-rollouts", map[string][]byte{"manifests/install.yaml": []byte("kind: List\n")}, "master")
	ts.Check(err)
	for _, tag := range []string{"v1.7.2", "v1.8.0"} {
		_, err := gs.Tag("argoproj", "argo-rollouts", tag, tag == "v1.8.0")
		ts.Check(err)
	}
	const rel = "/argoproj/argo-rollouts/releases/download/"
	forge, _ := gs.Forge(rel+"v1.7.2/install.yaml", rel+"v1.8.0/install.yaml", rel+"v1.7.2/crds.yaml")
	ts.Defer(forge.Close)
	ts.Setenv("GITFORGE", forge.URL)
	ts.Setenv("GITFORGE_HOST", strings.TrimPrefix(forge.URL, "http://"))
	ts.Setenv("GITFORGE_SLUG", strings.ReplaceAll(strings.TrimPrefix(forge.URL, "http://"), ":", "-"))
	ts.Setenv("IMAGEBOT_GIT_TOKEN", gitForgeToken)
	for env, h := range map[string]http.HandlerFunc{
		"BADGIT_HTML": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!DOCTYPE html><html><body><form action=/login>Sign in</form></body></html>"))
		},
		"BADGIT_404": http.NotFound,
	} {
		srv := httptest.NewServer(h)
		ts.Defer(srv.Close)
		ts.Setenv(env, srv.URL)
		ts.Setenv(env+"_HOST", strings.TrimPrefix(srv.URL, "http://"))
	}
}
