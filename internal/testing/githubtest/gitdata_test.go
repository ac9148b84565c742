package githubtest

import (
	"net/http"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-github/v60/github"
)

// TestGitDataCommit: a tree, a commit and a branch made through the API
// are real objects in the repository behind the fake: what git sees is
// what the API made. A bot's commit without a given identity is the bot's
// and signed with the fake's key; one with an author is as given, unsigned.
func TestGitDataCommit(t *testing.T) {
	e, c, inst := appEnv(t)
	bot := client(t, e.fake, mustToken(t, e, c, inst))
	main := e.gitRun("rev-parse", "main")
	mainTree := e.gitRun("rev-parse", "main^{tree}")

	tree, _, err := bot.Git.CreateTree(e.ctx, "acme", "apps", mainTree, []*github.TreeEntry{
		{Path: github.String("apps/web/deployment.yaml"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("image: nginx:1.26.1\n")},
		{Path: github.String("apps/api/deployment.yaml"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("image: api:2\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The same edit made by git itself hashes the same.
	e.commit("by-git", "main", "apps/api/deployment.yaml", "image: api:2\n")
	want := e.gitRun("rev-parse", e.commit("by-git", "by-git", "apps/web/deployment.yaml", "image: nginx:1.26.1\n")+"^{tree}")
	if tree.GetSHA() != want {
		t.Fatalf("API tree %s, git's %s", tree.GetSHA(), want)
	}

	// A blob of bytes that are not text, as git would hash them.
	blob, _, err := bot.Git.CreateBlob(e.ctx, "acme", "apps", &github.Blob{Content: github.String("//5pbWFnZQ=="), Encoding: github.String("base64")})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.gitRun("cat-file", "-p", blob.GetSHA()); got != "\xff\xfeimage" {
		t.Errorf("blob holds %q", got)
	}

	signed, _, err := bot.Git.CreateCommit(e.ctx, "acme", "apps", &github.Commit{
		Message: github.String("Update nginx to 1.26.1"), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: &main}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := signed.GetVerification(); !v.GetVerified() || v.GetReason() != "valid" {
		t.Errorf("bot's commit: verification %+v", v)
	}
	if a := signed.GetAuthor(); a.GetName() != "imagebot-test[bot]" || a.GetEmail() != NoreplyEmail("imagebot-test[bot]") || signed.GetCommitter().GetEmail() != a.GetEmail() {
		t.Errorf("bot's commit by %+v, committed by %+v", a, signed.GetCommitter())
	}
	custom, _, err := bot.Git.CreateCommit(e.ctx, "acme", "apps", &github.Commit{
		Message: github.String("custom"), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: &main}},
		Author: &github.CommitAuthor{Name: github.String("Jane"), Email: github.String("jane@acme.example")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := custom.GetVerification(); v.GetVerified() || v.GetReason() != "unsigned" {
		t.Errorf("commit with an author: verification %+v", v)
	}

	// A new branch; refused when it exists; moved only forward unless forced.
	ref := &github.Reference{Ref: github.String("refs/heads/imagebot/nginx"), Object: &github.GitObject{SHA: signed.SHA}}
	if _, _, err := bot.Git.CreateRef(e.ctx, "acme", "apps", ref); err != nil {
		t.Fatal(err)
	}
	_, _, err = bot.Git.CreateRef(e.ctx, "acme", "apps", ref)
	if er := errorResponse(t, err, http.StatusUnprocessableEntity); er.Message != "Reference already exists" {
		t.Errorf("second create: %q", er.Message)
	}
	ref.Object.SHA = custom.SHA // a sibling: not a fast-forward
	_, _, err = bot.Git.UpdateRef(e.ctx, "acme", "apps", ref, false)
	if er := errorResponse(t, err, http.StatusUnprocessableEntity); er.Message != "Update is not a fast forward" {
		t.Errorf("non-fast-forward: %q", er.Message)
	}
	if _, _, err := bot.Git.UpdateRef(e.ctx, "acme", "apps", ref, true); err != nil {
		t.Errorf("forced update: %v", err)
	}
	ref.Object.SHA = signed.SHA
	if _, _, err := bot.Git.UpdateRef(e.ctx, "acme", "apps", ref, true); err != nil {
		t.Fatal(err)
	}

	// Over git: the branch is the commit the API made, signed with the
	// fake's key, and the API says so when asked again.
	r, err := git.PlainOpen(e.git.Dir("acme", "apps"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Reference(plumbing.NewBranchReferenceName("imagebot/nginx"), true)
	if err != nil || head.Hash().String() != signed.GetSHA() {
		t.Fatalf("branch over git: %v, %v; want %s", head, err, signed.GetSHA())
	}
	gc, err := r.CommitObject(head.Hash())
	if err != nil {
		t.Fatal(err)
	}
	key, err := e.fake.SigningKey()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gc.Verify(key); err != nil {
		t.Errorf("signature of the fetched commit: %v", err)
	}
	again, _, err := e.gh.Git.GetCommit(e.ctx, "acme", "apps", signed.GetSHA())
	if err != nil || !again.GetVerification().GetVerified() {
		t.Errorf("GET commit: %v, %v", again.GetVerification(), err)
	}
	// GitHub checks signatures in its own time, however far a test sets it.
	c.add(48 * time.Hour)
	bot = client(t, e.fake, mustToken(t, e, c, inst))
	later, _, err := bot.Git.CreateCommit(e.ctx, "acme", "apps", &github.Commit{
		Message: github.String("later"), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: &main}},
	}, nil)
	if err != nil || !later.GetVerification().GetVerified() {
		t.Errorf("commit two days on: %+v, %v", later.GetVerification(), err)
	}
	var actors []string
	for _, w := range e.fake.WriteLog() {
		actors = append(actors, w.Actor)
	}
	if len(actors) != 10 {
		t.Errorf("writes by %v, want 10 by the bot", actors)
	}
	for _, a := range actors {
		if a != "imagebot-test[bot]" {
			t.Errorf("write by %s", a)
		}
	}
}

// mustToken is a new installation token, in the clock's time.
func mustToken(t *testing.T, e *env, c *clock, inst int64) string {
	t.Helper()
	asApp := client(t, e.fake, signJWT(t, appKey(), "4242", c.Now(), -time.Minute, 9*time.Minute))
	tok, _, err := asApp.Apps.CreateInstallationToken(e.ctx, inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok.GetToken()
}
